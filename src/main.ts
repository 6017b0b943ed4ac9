// loadConfig() -> createDeps(config) -> createServer(deps) -> listen; graceful close.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from './config.js';
import { createDeps, startMaintenance, startNudgeWorker, type CreateDepsOptions, type Deps } from './deps.js';
import type { NudgeQueue } from './infra/queue/nudge-queue.js';
import type { MaintenanceQueue } from './infra/queue/maintenance-queue.js';
import { createGrpcServer, createServer } from './transports/http/server.js';
import { startOperatorSocket } from './transports/cli/operator-socket.js';
import { createMetricsServer } from './transports/http/metrics.js';
import type { FastifyInstance } from 'fastify';
import type http2 from 'node:http2';
import type { Clock, Logger } from './domain/context.js';
import type pino from 'pino';

// src/main.ts under tsx, dist/src/main.js in the build (scripts/build.mjs): one level deeper.
export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(new URL(import.meta.url.endsWith('.ts') ? '../package.json' : '../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface RunningService {
  deps: Deps;
  app: FastifyInstance;
  grpc: http2.Http2Server;
  port: number;
  grpcPort: number;
  /** The METRICS_PORT listener's port; null = GET /metrics is on `port`. */
  metricsPort: number | null;
  baseUrl: string;
  /** The nudge worker (null with WORKER=off). */
  nudges: NudgeQueue | null;
  /** The maintenance runner (null with WORKER=off). */
  maintenance: MaintenanceQueue | null;
  close(): Promise<void>;
}

/** A free port chosen up front, so PORT=0 still yields a PUBLIC_BASE_URL with the real port. */
async function freePort(host: string): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const PORT_ATTEMPTS = 5;

export interface StartOptions {
  clock?: Clock;
  logger?: pino.Logger;
  /** Test-only: sees the HTTP/1.1 Fastify instance before any hook or route is added (ServerOptions.instrument). */
  instrumentHttp?: (app: FastifyInstance) => void;
  /** Test-only: CreateDepsOptions.callbackSender and .watchTiming. */
  callbackSender?: CreateDepsOptions['callbackSender'];
  watchTiming?: CreateDepsOptions['watchTiming'];
}

export async function startService(config: Config, opts: StartOptions = {}): Promise<RunningService> {
  if (config.port !== 0) return startOn(config, opts);
  // PORT=0: a free port is chosen up front (the public URLs name it), and another process can take
  // it before we listen; then everything started is closed again and another port is tried.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort(config.host);
    const derived = config.publicBaseUrl === `http://${config.host}:0`;
    const publicBaseUrl = derived ? `http://${config.host}:${port}` : config.publicBaseUrl;
    const errorsBaseUrl = config.errorsBaseUrl === `${config.publicBaseUrl}/errors` ? `${publicBaseUrl}/errors` : config.errorsBaseUrl;
    try {
      return await startOn(Object.freeze({ ...config, port, publicBaseUrl, errorsBaseUrl }), opts);
    } catch (err) {
      if ((err as { code?: string }).code !== 'EADDRINUSE' || attempt >= PORT_ATTEMPTS) throw err;
    }
  }
}

async function startOn(config: Config, opts: StartOptions): Promise<RunningService> {
  const deps = await createDeps(config, {
    clock: opts.clock,
    logger: opts.logger,
    role: 'server',
    callbackSender: opts.callbackSender,
    watchTiming: opts.watchTiming,
  });
  let nudges: NudgeQueue | null = null;
  let maintenance: MaintenanceQueue | null;
  try {
    nudges = await startNudgeWorker(deps, config);
    maintenance = await startMaintenance(deps, config);
  } catch (err) {
    await nudges?.stop();
    await deps.close();
    throw err;
  }
  const app = await createServer({
    deps,
    logger: deps.logger,
    errorsBaseUrl: config.errorsBaseUrl,
    publicBaseUrl: config.publicBaseUrl,
    serviceVersion: config.serviceVersion,
    oidc: config.oidc,
    trustProxyHops: config.trustProxyHops,
    metricsRoute: config.metricsPort === null,
    instrument: opts.instrumentHttp,
  });
  // METRICS_PORT: /metrics on a listener of its own, kept open until the rest has stopped (a scrape sees the drain).
  const metricsServer = config.metricsPort === null ? null : createMetricsServer(deps.metrics, (err) => deps.log.error({ err }, 'metrics collection failed'));
  const grpc = createGrpcServer(deps);
  // HTTP/2 sessions stay open after close() stops accepting: tracked, so the stop can end them.
  const sessions = new Set<http2.ServerHttp2Session>();
  grpc.on('session', (s: http2.ServerHttp2Session) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  });
  const operator = deps.lock ? await startOperatorSocket(deps, deps.lock.socketPath) : null;
  const stopAll = async () => {
    // Readiness and grpc.health turn NOT_SERVING first (Watch streams are told and end); with
    // SHUTDOWN_DELAY_S the listeners keep serving that long, so load balancers see it before they
    // see refused connections.
    deps.readiness.drain();
    if (config.shutdownDelayS > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayS * 1000));
    // Stop accepting; requests in flight finish. Streams still open after STREAM_END_DEADLINE_MS are cut.
    const cut = setTimeout(() => {
      for (const s of sessions) s.destroy();
      app.server.closeAllConnections();
    }, STREAM_END_DEADLINE_MS);
    cut.unref();
    for (const s of sessions) s.close();
    await Promise.all([new Promise<void>((r) => grpc.close(() => r())), app.close()]);
    clearTimeout(cut);
    await operator?.close();
    if (metricsServer?.listening) {
      const closed = new Promise<void>((r) => metricsServer.close(() => r()));
      metricsServer.closeAllConnections();
      await closed;
    }
    // In-flight sends finish (or time out); undispatched nudges stay in the outbox / queue.
    // Each step has a deadline: a queue stuck on a dead connection must not keep the process
    // (or a test's afterAll) alive; what it had not finished is retried by the next process.
    await withDeadline('nudge worker stop', nudges?.stop(), deps.log);
    await withDeadline('maintenance stop', maintenance?.stop(), deps.log);
    await withDeadline('database and redis close', deps.close(), deps.log);
  };
  try {
    await app.listen({ port: config.port, host: config.host });
    await new Promise<void>((resolve, reject) => {
      grpc.once('error', reject);
      grpc.listen(config.grpcPort, config.host, () => resolve());
    });
    if (metricsServer) {
      await new Promise<void>((resolve, reject) => {
        metricsServer.once('error', reject);
        metricsServer.listen(config.metricsPort!, config.host, () => resolve());
      });
    }
  } catch (err) {
    // A port in use (or any listen failure): nothing started may outlive the failed start.
    await stopAll();
    throw err;
  }
  const port = (app.server.address() as AddressInfo).port;
  const grpcPort = (grpc.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  return {
    deps,
    app,
    grpc,
    port,
    grpcPort,
    metricsPort: metricsServer ? (metricsServer.address() as AddressInfo).port : null,
    baseUrl: `http://${config.host}:${port}`,
    nudges,
    maintenance,
    close() {
      closing ??= stopAll();
      return closing;
    },
  };
}

const STOP_DEADLINE_MS = 15_000;
/** How long a server stream (grpc.health Watch...) may outlive the start of a stop before it is cut. */
const STREAM_END_DEADLINE_MS = 5_000;

async function withDeadline(step: string, work: Promise<unknown> | undefined, log: Logger): Promise<void> {
  if (!work) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => {
    timer = setTimeout(() => r('late'), STOP_DEADLINE_MS);
    timer.unref();
  });
  const outcome = await Promise.race([
    work.then(
      () => 'done' as const,
      (err: unknown) => err,
    ),
    late,
  ]);
  clearTimeout(timer);
  if (outcome === 'late') log.warn({ step, ms: STOP_DEADLINE_MS }, 'shutdown step overran its deadline; going on');
  else if (outcome !== 'done') log.warn({ step, err: { message: (outcome as Error)?.message } }, 'shutdown step failed; going on');
}

async function main(): Promise<void> {
  const config = loadConfig(process.env, SERVICE_VERSION);
  const svc = await startService(config);
  svc.deps.logger.info(
    {
      port: svc.port,
      grpcPort: svc.grpcPort,
      database: config.databaseUrl ? 'postgresql' : `embedded (${config.dataDir})`,
      redis: config.redisUrl ? 'redis' : 'in-process',
      nudgeWorker: svc.nudges ? 'on' : 'off',
      metrics: svc.metricsPort === null ? `/metrics on :${svc.port}` : `/metrics on :${svc.metricsPort}`,
    },
    `fluxdesk ${SERVICE_VERSION} ready on ${svc.baseUrl} (gRPC h2c on :${svc.grpcPort})`,
  );
  // SIGTERM / SIGINT: a graceful stop within SHUTDOWN_TIMEOUT_S (exit 0), else exit 1 with a log line.
  // A second signal exits at once. `npm start` runs node with `exec`, so npm forwards the signal here.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      svc.deps.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    stopping = true;
    svc.deps.logger.info({ signal, timeoutS: config.shutdownTimeoutS }, 'shutting down');
    const overrun = setTimeout(() => {
      svc.deps.logger.error({ signal, timeoutS: config.shutdownTimeoutS }, 'graceful shutdown overran SHUTDOWN_TIMEOUT_S; exiting');
      process.exit(1);
    }, config.shutdownTimeoutS * 1000);
    overrun.unref();
    svc.close().then(
      () => {
        svc.deps.logger.info({ signal }, 'stopped');
        process.exit(0);
      },
      (err: unknown) => {
        svc.deps.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main().catch((err) => {
    console.error(`fluxdesk failed to start: ${(err as Error).message}`);
    process.exit(1);
  });
}
