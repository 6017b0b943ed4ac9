// PostgreSQL unreachable: no 2xx for events (503 + Retry-After), health still answers (no
// database access), and the service recovers by itself when the database returns.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase, event, http, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';

let h: Harness;
let proxy: TcpProxy;
let db: Awaited<ReturnType<typeof createDatabase>>;

beforeAll(async () => {
  db = await createDatabase();
  proxy = await startTcpProxy(5432);
  h = await startHarness({ databaseUrl: db.url.replace('127.0.0.1:5432', `127.0.0.1:${proxy.port}`) });
});
afterAll(async () => {
  await proxy?.restore().catch(() => undefined);
  await h?.close();
  await proxy?.close();
  await db?.drop();
});

it('answers 503 without storing while PostgreSQL is down, then recovers', async () => {
  const t = await newPersonalToken(h);
  const before = await publish(h, t.token, event(h));
  expect(before.status).toBe(202);

  await proxy.cut();
  const ev = event(h);
  const down = await publish(h, t.token, ev);
  expect(down.status).toBe(503);
  expect(down.headers.get('content-type')).toContain('application/problem+json');
  expect(Number(down.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(JSON.stringify(down.body)).not.toContain(t.token);
  const health = await http(h, 'GET', '/api/v1/health');
  expect(health.status).toBe(200);

  await proxy.restore();
  // The pool reconnects on its own: the next attempts succeed without a restart.
  let after = await publish(h, t.token, ev);
  for (let i = 0; i < 20 && after.status !== 202; i++) after = await publish(h, t.token, ev);
  expect(after.status).toBe(202);
  expect(after.body.fireCount).toBe(1); // the 503 attempt stored nothing
});
