// Composition root: ORM (PostgreSQL | PGlite), Redis or in-process stores, logger, clock.
import { loggablePath } from './infra/loggable-path.js';
import pino from 'pino';
import type { MikroORM } from '@mikro-orm/core';
import type { Config } from './config.js';
import type { AppDeps } from './app/deps.js';
import { OperationLoad } from './app/operation-load.js';
import { Readiness } from './app/readiness.js';
import type { Clock, Logger } from './domain/context.js';
import { openOrm, migrate } from './infra/db/orm.js';
import { POST_DEPLOY_MIGRATIONS } from './infra/db/migrations/index.js';
import { MemoryRateLimiter, rateWindowReader, RedisRateLimiter } from './infra/rate-limit/rate-limiter.js';
import type { RateWindowReader } from './domain/ports.js';
import { createRedisClient, probeRedis, type RedisClient } from './infra/redis-client.js';
import { parseRedisUrl } from './infra/redis-url.js';
import { MemoryIdempotencyStore, RedisIdempotencyStore } from './infra/idempotency/idempotency-store.js';
import { systemClock } from './infra/clock.js';
import { acquireDataDirLock, type DataDirLock } from './infra/db/data-dir-lock.js';
import { NudgeQueue } from './infra/queue/nudge-queue.js';
import { DispatchPacer } from './infra/queue/dispatch-pacer.js';
import { createNudgeEgressClient } from './infra/chat/nudge-egress.js';
import { createChatSender } from './infra/chat/chat-sender.js';
import { createWebPushSender } from './infra/push/web-push-sender.js';
import { loadOrCreateVapidKeys } from './infra/push/vapid-keys.js';
import { dispatchNudges } from './domain/nudges/dispatch-nudges.js';
import { createSmtpMailer } from './infra/mail/mailer.js';
import { MaintenanceQueue } from './infra/queue/maintenance-queue.js';
import { createEgressClient } from './infra/http-egress/egress-client.js';
import { allowHostSet } from './domain/egress-policy.rules.js';
import type { CallbackSender } from './domain/actions/callback-sender.js';
import { MAINTENANCE_TASKS, POLL_TASKS } from './app/maintenance-tasks.js';
import { loggerWithTracer, startTracing, traceLogFields, traceLogMerge } from './infra/tracing/tracing.js';
import { createMetrics } from './infra/metrics/metrics.js';
import { DatabaseEventStore } from './infra/events/event-store.js';
import { DatabaseTokenDirectory } from './infra/tokens/token-directory.js';
import { MemoryInboxFeed } from './infra/inbox-feed/memory-inbox-feed.js';
import { RedisInboxFeed } from './infra/inbox-feed/redis-inbox-feed.js';
import { ensurePartitionsAhead, type PartitionSettings } from './infra/db/partitions.js';
import { NextMonthPartitionsProbe } from './infra/db/partition-tasks.js';

export interface Deps extends AppDeps {
  /** One server or a Redis Cluster (REDIS_URL); null = in-process stores. */
  redis: RedisClient | null;
  lock: DataDirLock | null;
  logger: pino.Logger;
  /** The ports with their implementations' own handles (group commit statistics, last-use flush) for tests and benches. */
  ports: { events: DatabaseEventStore; tokens: DatabaseTokenDirectory; inboxFeed: RedisInboxFeed | MemoryInboxFeed; rateWindows: RateWindowReader };
  close(): Promise<void>;
}

/** Pino with authorization and secrets redacted; query strings never logged. */
export function createLogger(level: string, fd: 1 | 2 = 1, stream?: pino.DestinationStream): pino.Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-caller-tools-token"]',
          'headers.authorization',
          '*.token',
          '*.agentToken',
          '*.token_value',
          'token',
          'agentToken',
        ],
        censor: '[redacted]',
      },
      serializers: {
        // Path only, and no sign-in link secret (infra/loggable-path.ts).
        req: (req: { method?: string; url?: string; id?: string }) => ({ method: req.method, url: loggablePath(req.url), requestId: req.id }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
        err: pino.stdSerializers.err,
      },
      // The active trace's trace_id / span_id in every line (nothing while tracing is off).
      mixin: traceLogFields,
      mixinMergeStrategy: traceLogMerge,
    },
    stream ?? pino.destination({ fd, sync: fd === 2 }),
  );
}

export interface CreateDepsOptions {
  clock?: Clock;
  logger?: pino.Logger;
  /** The CLI opens the embedded database only when no server holds it. */
  role?: 'server' | 'cli';
  /** Tests: the action callbacks' sender (e.g. an egress client with a short deadline); default the SSRF-guarded egress client. */
  callbackSender?: CallbackSender;
  /** Tests: WatchInbox heartbeat and re-check intervals (AppDeps.watchTiming). */
  watchTiming?: AppDeps['watchTiming'];
}

export async function createDeps(config: Config, opts: CreateDepsOptions = {}): Promise<Deps> {
  const base = opts.logger ?? createLogger(config.logLevel);
  // Before anything that makes spans; loads no OpenTelemetry code unless an OTEL_* variable asks.
  const tracer = await startTracing(config.tracing, config.serviceVersion, base as unknown as Logger);
  // With tracing on, the service logs through a child of `base` that names the active trace.
  const logger = tracer === null ? base : loggerWithTracer(base, tracer);
  const lock = config.databaseUrl ? null : acquireDataDirLock(config.dataDir, opts.role ?? 'server');
  let orm: MikroORM;
  try {
    orm = await openOrm({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolMax: config.dbPoolMax,
      connMaxLifetimeS: config.dbConnMaxLifetimeS,
      tracer,
    });
    await migrate(orm, config.databaseUrl, { postDeploy: config.migratePostDeploy });
    if (opts.role !== 'cli') {
      const waiting = (await orm.migrator.getPending()).filter((m) => POST_DEPLOY_MIGRATIONS.has(m.name)).map((m) => m.name);
      if (waiting.length > 0)
        logger.warn(
          { postDeployPending: waiting },
          'post-deploy migrations pending: run `npx fluxdesk migrate --post-deploy` once every node runs this release',
        );
    }
    // Partitions ahead at every start (idempotent; the daily `partitions.ahead` job keeps them ahead).
    await ensurePartitionsAhead(orm.em.fork(), (opts.clock ?? systemClock).now(), config.partitions.monthsAhead);
  } catch (err) {
    lock?.release();
    await tracer?.shutdown();
    throw err;
  }
  const clock = opts.clock ?? systemClock;
  // This instance's own registry (tests run several services in one process).
  const metrics = createMetrics({ orm, clock, log: logger as unknown as Logger, serviceVersion: config.serviceVersion });
  let redis: RedisClient | null = null;
  if (config.redisUrl) {
    // Fails fast while Redis is away: the runner decides (rate limit fails open, Idempotency-Key
    // requests fail closed with 503). One server or a cluster: infra/redis-client.ts.
    redis = createRedisClient(parseRedisUrl(config.redisUrl), config.redisKeyPrefix);
    const onError = (err: Error) => {
      metrics.redisError();
      logger.warn({ err: { message: err.message } }, 'redis error');
    };
    redis.on('error', onError);
    // A cluster reports a lost or refused node connection as `node error`.
    redis.on('node error', onError);
    await redis.connect().catch((err) => logger.warn({ err: { message: (err as Error).message } }, 'redis unavailable at start; retrying in background'));
  }
  const rateLimiter = redis ? new RedisRateLimiter(redis) : new MemoryRateLimiter();
  const partitions: PartitionSettings = {
    monthsAhead: config.partitions.monthsAhead,
    retentionDays: { audit: config.partitions.auditRetentionDays, delivery: config.partitions.deliveryRetentionDays },
  };
  const partitionsProbe = new NextMonthPartitionsProbe(orm, clock);
  const deps: Deps = {
    orm,
    redis,
    lock,
    logger,
    rateLimiter,
    idempotency: redis ? new RedisIdempotencyStore(redis) : new MemoryIdempotencyStore(),
    clock,
    tracer,
    config: { publicBaseUrl: config.publicBaseUrl, allowedEmailDomains: config.allowedEmailDomains, egressAllowHosts: allowHostSet(config.egressAllowHosts) },
    log: logger as unknown as Logger,
    // One of each per service (tests run several services in one process): the group commit, the
    // batched token lookups, the principal cache and the last-use refresh live in them.
    ports: {
      events: new DatabaseEventStore(orm.em.getConnection()),
      tokens: new DatabaseTokenDirectory(orm.em.getConnection()),
      // Live inbox changes (WatchInbox): Redis pub/sub across processes, in process when embedded.
      inboxFeed: redis
        ? new RedisInboxFeed(redis, {
            keyPrefix: config.redisKeyPrefix,
            onError: (err, what) => logger.warn({ err: { message: err.message }, what }, 'inbox feed: redis unavailable'),
          })
        : new MemoryInboxFeed(),
      rateWindows: rateWindowReader(rateLimiter),
    },
    // Webhook action callbacks: https and public addresses only, but for the hosts of EGRESS_ALLOW_HOSTS
    // (the same list publish accepts webhook targets by, DomainConfig.egressAllowHosts); a 5 s deadline.
    callbackSender: opts.callbackSender ?? createEgressClient({ allowHosts: config.egressAllowHosts, tracer }),
    watchTiming: opts.watchTiming,
    nudgeEgressAllowHosts: config.nudges.egressAllowHosts,
    pushEndpointAllowHosts: config.nudges.pushEndpointAllowHosts,
    load: new OperationLoad(),
    metrics,
    readiness: new Readiness(
      [
        { name: 'postgres', check: async () => void (await orm.em.getConnection().execute('select 1')) },
        {
          name: 'migrations',
          check: async () => {
            // Post-deploy migrations wait for the operator (docs/migrations.md): not a reason to refuse traffic.
            const pending = (await orm.migrator.getPending()).filter((m) => !POST_DEPLOY_MIGRATIONS.has(m.name));
            if (pending.length > 0) throw new Error(`${pending.length} migrations pending`);
          },
        },
        { name: 'partitions', check: () => partitionsProbe.check() },
        ...(redis ? [{ name: 'redis', check: () => probeRedis(redis!) }] : []),
      ],
      () => clock.now().getTime(),
    ),
    partitions,
    mailer: config.mail.smtpUrl
      ? createSmtpMailer({ url: config.mail.smtpUrl, from: config.mail.from, messageIdDomain: messageIdDomain(config.publicBaseUrl) })
      : null,
    async close() {
      deps.mailer?.close();
      deps.ports.inboxFeed.close();
      redis?.disconnect();
      await orm.close(true);
      lock?.release();
      // Last: spans of the stop itself are exported too.
      await tracer?.shutdown();
    },
  };
  return deps;
}

const messageIdDomain = (publicBaseUrl: string) => {
  try {
    return new URL(publicBaseUrl).hostname || 'fluxdesk.invalid';
  } catch {
    return 'fluxdesk.invalid';
  }
};

/**
 * The maintenance runner (every MAINTENANCE_TASKS entry, once per period across all processes on the
 * database), started with the worker (WORKER=on); each run reads `now` from the injected clock.
 */
export async function startMaintenance(deps: Deps, config: Config): Promise<MaintenanceQueue | null> {
  if (!config.nudges.worker) return null;
  const log = deps.log.child({ component: 'maintenance' });
  const queue = new MaintenanceQueue({
    orm: deps.orm,
    databaseUrl: config.databaseUrl,
    log,
    jobs: MAINTENANCE_TASKS.map((t) => ({ name: t.name, everySeconds: t.everySeconds, run: () => t.run(deps, deps.clock.now()) })),
    pollers: POLL_TASKS.map((t) => ({ name: t.name, everyMs: t.everyMs, run: () => t.run(deps, deps.clock.now()) })),
  });
  await queue.start();
  return queue;
}

/**
 * The nudge worker (outbox dispatch + pg-boss retry worker + chat/push senders), started by startService
 * unless WORKER=off. VAPID keys are created on first start even without a worker, so browsers can
 * subscribe (GetVapidPublicKey) while another process dispatches.
 */
export async function startNudgeWorker(deps: Deps, config: Config): Promise<NudgeQueue | null> {
  const vapid = await loadOrCreateVapidKeys(deps.orm, deps.clock.now());
  if (!config.nudges.worker) return null;
  const n = config.nudges;
  // User-supplied URLs leave only under the egress rules (https, public addresses after DNS, one
  // deadline; plain http / loopback only for hosts named in NUDGE_EGRESS_ALLOW_HOSTS), over pooled
  // keep-alive connections (see infra/chat/nudge-egress.ts).
  const egress = createNudgeEgressClient({
    timeoutMs: n.sendTimeoutMs,
    allowHosts: n.egressAllowHosts,
    maxSocketsPerHost: Math.max(8, n.concurrency * 8),
    tracer: deps.tracer,
  });
  const userAgent = `fluxdesk-Nudge/${config.serviceVersion}`;
  const env = {
    chat: createChatSender(egress, userAgent),
    push: createWebPushSender(egress, { vapid, subject: n.vapidSubject, ttlSeconds: n.pushTtlSeconds }),
    pushEndpointAllowHosts: n.pushEndpointAllowHosts,
    publicBaseUrl: config.publicBaseUrl,
    clock: deps.clock,
    log: deps.log.child({ component: 'nudges' }),
  };
  const queue = new NudgeQueue({
    orm: deps.orm,
    // Yields to requests while this process serves many (infra/queue/dispatch-pacer.ts).
    pacer: new DispatchPacer({
      inFlight: () => deps.load.inFlight,
      busyAt: n.yieldAtInFlight,
      maxDeferMs: n.maxDeferSeconds * 1000,
      nowMs: () => deps.clock.now().getTime(),
    }),
    databaseUrl: config.databaseUrl,
    log: env.log,
    handle: async (jobs) => {
      // With tracing on, one trace per dispatched batch: its statements and sends are its children.
      const tracer = deps.tracer;
      const outcomes = await (tracer === null
        ? dispatchNudges(deps.orm.em.fork(), env, jobs)
        : tracer.inSpan('nudges.dispatch', 'internal', { 'fluxdesk.nudges': jobs.length }, () => dispatchNudges(deps.orm.em.fork(), env, jobs)));
      const channels = new Map(jobs.map((j) => [j.id, j.channel]));
      for (const r of outcomes) {
        const channel = channels.get(r.id);
        if (channel) deps.metrics.nudgeSent(channel, r.status);
      }
      return outcomes;
    },
    retryLimit: n.retryLimit,
    retryDelaySeconds: n.retryDelaySeconds,
    retryDelayMaxSeconds: n.retryDelayMaxSeconds,
    expireInSeconds: n.expireInSeconds,
    batchSize: n.batchSize,
    concurrency: n.concurrency,
    pollIntervalMs: n.relayIntervalMs,
    poolMax: Math.max(2, Math.min(10, n.concurrency + 2)),
    onStopped: () => egress.close(),
  });
  await queue.start();
  return queue;
}
