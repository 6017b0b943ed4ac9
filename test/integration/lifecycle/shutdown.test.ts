// The lifecycle a supervisor sees (README "Probes and shutdown"): the service is
// started with `npm start`, exactly as a supervisor or a newcomer does; SIGTERM to THAT process (npm)
// stops the service gracefully: readiness and grpc.health turn NOT_SERVING first, a request in
// flight finishes, an open Watch stream is ended, and the process exits 0 within
// SHUTDOWN_TIMEOUT_S (else 1, with a log line). A second signal exits at once. No node process is
// left behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Health, HealthCheckResponse_ServingStatus } from '../../../gen/grpc/health/v1/health_pb.js';
import { loadConfig } from '../../../src/config.js';
import { createDeps, type Deps } from '../../../src/deps.js';
import { runOperator } from '../../../src/transports/cli/operator-socket.js';
import { createDatabase, holdRowLock, REDIS_URL, uniqueEmail, type Harness } from '../../helpers/harness.js';
import { freePort } from '../../helpers/redis-server.js';

let db: Awaited<ReturnType<typeof createDatabase>>;
let ops: Deps;
beforeAll(async () => {
  db = await createDatabase();
  ops = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', WORKER: 'off' }, '0.0.0'), { role: 'cli' });
});
afterAll(async () => {
  await ops?.close();
  await db?.drop();
});

async function op<T = any>(name: string, input: Record<string, unknown>): Promise<T> {
  const r = await runOperator(ops, name, input);
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
  return r.output as T;
}

interface Started {
  npm: ChildProcess;
  base: string;
  grpcBase: string;
  log: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

async function startNpm(env: Record<string, string> = {}): Promise<Started> {
  const [port, grpcPort] = [await freePort(), await freePort()];
  let out = '';
  const npm = spawn('npm', ['start', '--silent'], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      REDIS_URL,
      PORT: String(port),
      GRPC_PORT: String(grpcPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      WORKER: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  npm.stdout!.on('data', (c) => (out += c));
  npm.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    npm.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ok = await fetch(`${base}/api/v1/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (npm.exitCode !== null || i > 600) throw new Error(`service did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { npm, base, grpcBase: `http://127.0.0.1:${grpcPort}`, log: () => out, exited };
}

const gone = (base: string) =>
  fetch(`${base}/api/v1/health`).then(
    () => false,
    () => true,
  );

async function tokenAndDelivery(started: Started): Promise<{ token: string; deliveryId: string; ev: Record<string, unknown> }> {
  const email = uniqueEmail('life');
  await op('users.create', { email, name: 'Life', role: 'member' });
  const { token } = await op<{ token: string }>('tokens.create_personal', { email, label: 'life', daily_limit: 200 });
  const ev = {
    spec_version: '2',
    event_id: `life-${Date.now()}`,
    event_type: 'personal.life.cycle',
    severity: 'info',
    title: 'lifecycle',
    occurred_at: new Date(Date.now() - 1000).toISOString(),
  };
  const r = await fetch(`${started.base}/api/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(ev),
  });
  expect(r.status).toBe(202);
  return { token, deliveryId: ((await r.json()) as { deliveryId: string }).deliveryId, ev };
}

describe('SIGTERM to `npm start`', () => {
  it('drains: NOT_SERVING first, the request in flight finishes, the Watch stream ends, exit 0', async () => {
    const s = await startNpm({ SHUTDOWN_DELAY_S: '1' });
    const { token, deliveryId, ev } = await tokenAndDelivery(s);
    expect((await fetch(`${s.base}/api/v1/ready`)).status).toBe(200);

    // A Watch stream held open by a client that never leaves.
    const sessionManager = new Http2SessionManager(s.grpcBase);
    const health = createClient(Health, createGrpcTransport({ baseUrl: s.grpcBase, sessionManager }));
    const seen: HealthCheckResponse_ServingStatus[] = [];
    const watching = (async () => {
      for await (const m of health.watch({ service: '' })) seen.push(m.status);
    })().then(
      () => 'ended',
      (e: unknown) => `error: ${(e as Error).message}`,
    );
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 20));
    expect(seen[0]).toBe(HealthCheckResponse_ServingStatus.SERVING);

    // A request in flight: a repeat of the event waits for the delivery row, locked here.
    const lock = await holdRowLock({ databaseUrl: db.url } as Harness, 'deliveries', deliveryId);
    const inFlight = fetch(`${s.base}/api/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(ev),
    });
    await new Promise((r) => setTimeout(r, 300));

    const sentAt = Date.now();
    s.npm.kill('SIGTERM');
    // Draining, still accepting during SHUTDOWN_DELAY_S: readiness 503 naming the reason, NOT_SERVING pushed.
    // (npm passes the signal on a moment later: the first probes may still see 200.)
    let ready = await fetch(`${s.base}/api/v1/ready`);
    for (let i = 0; ready.status === 200 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20));
      ready = await fetch(`${s.base}/api/v1/ready`);
    }
    expect(ready.status).toBe(503);
    expect(ready.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await ready.json()).toMatchObject({ status: 503, code: 'not_ready', failing: ['draining'] });
    expect(await watching).toBe('ended');
    expect(seen).toEqual([HealthCheckResponse_ServingStatus.SERVING, HealthCheckResponse_ServingStatus.NOT_SERVING]);
    sessionManager.abort();

    await new Promise((r) => setTimeout(r, 1200));
    await lock.release();
    const answered = await inFlight;
    expect(answered.status).toBe(200);

    const { code, at } = await s.exited;
    expect(code).toBe(0);
    expect(at - sentAt).toBeLessThan(10_000);
    expect(s.log()).toContain('shutting down');
    expect(await gone(s.base)).toBe(true);
  });

  it('exits 1 with a log line when the stop overruns SHUTDOWN_TIMEOUT_S; a second signal exits at once', async () => {
    const s = await startNpm({ SHUTDOWN_TIMEOUT_S: '2' });
    const { token, deliveryId, ev } = await tokenAndDelivery(s);
    const lock = await holdRowLock({ databaseUrl: db.url } as Harness, 'deliveries', deliveryId);
    const stuck = fetch(`${s.base}/api/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(ev),
    }).catch(() => null);
    await new Promise((r) => setTimeout(r, 300));
    const sentAt = Date.now();
    s.npm.kill('SIGTERM');
    const { code, at } = await s.exited;
    expect(code).toBe(1);
    expect(at - sentAt).toBeGreaterThanOrEqual(1900);
    expect(at - sentAt).toBeLessThan(8000);
    expect(s.log()).toContain('overran SHUTDOWN_TIMEOUT_S');
    await lock.release();
    await stuck;
    expect(await gone(s.base)).toBe(true);

    const again = await startNpm();
    const t2 = await tokenAndDelivery(again);
    const lock2 = await holdRowLock({ databaseUrl: db.url } as Harness, 'deliveries', t2.deliveryId);
    const stuck2 = fetch(`${again.base}/api/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t2.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(t2.ev),
    }).catch(() => null);
    await new Promise((r) => setTimeout(r, 300));
    again.npm.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const secondAt = Date.now();
    again.npm.kill('SIGTERM');
    const second = await again.exited;
    expect(second.code).not.toBe(0);
    expect(second.at - secondAt).toBeLessThan(1500);
    expect(again.log()).toContain('second signal');
    await lock2.release();
    await stuck2;
    expect(await gone(again.base)).toBe(true);
  });
});
