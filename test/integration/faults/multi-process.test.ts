// Two service instances on one PostgreSQL database and one Redis behave as one service: the
// per-token rate limit, dedup and Idempotency-Key are shared, and revocation is immediate on both:
// each process's principal cache is proven by the publish statement itself (docs/architecture.md,
// "The publish path"), so a revocation by any process is refused by every process at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/infra/clock.js';
import { createDatabase, event, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';

let db: Awaited<ReturnType<typeof createDatabase>>;
let a: Harness;
let b: Harness;
beforeAll(async () => {
  db = await createDatabase();
  // Both start at once on an empty database (a rollout): one migrates under the advisory lock,
  // the other waits and finds nothing left to do.
  const clock = new ManualClock();
  [a, b] = await Promise.all([startHarness({ databaseUrl: db.url, clock }), startHarness({ databaseUrl: db.url, clock })]);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await db?.drop();
});

describe('two instances on the same database and Redis', () => {
  it('run as two independent listeners', () => {
    expect(a.baseUrl).not.toBe(b.baseUrl);
    expect(a.grpcUrl).not.toBe(b.grpcUrl);
  });

  it('the 60/min limit holds across both: alternating requests, the 61st is 429 on either', async () => {
    const t = await newPersonalToken(a);
    for (let i = 0; i < 60; i++) {
      const r = await publish(i % 2 === 0 ? a : b, t.token, event(a));
      expect(r.status).toBe(202);
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(59 - i));
    }
    const onA = await publish(a, t.token, event(a));
    const onB = await publish(b, t.token, event(a));
    expect([onA.status, onB.status]).toEqual([429, 429]);
    expect(onB.body.code).toBe('rate_limited');
    expect(Number(onB.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('dedup across both: the same event to A then B gives 202 then 200 with the same deliveryId', async () => {
    const t = await newPersonalToken(a);
    const ev = event(a);
    const ra = await publish(a, t.token, ev);
    const rb = await publish(b, t.token, ev);
    expect([ra.status, rb.status]).toEqual([202, 200]);
    expect(rb.body).toMatchObject({ deliveryId: ra.body.deliveryId, deduped: true, fireCount: 2 });
  });

  it('idempotency across both: a key used on A is replayed on B', async () => {
    const t = await newPersonalToken(a);
    const ev = event(a);
    const k = `multi-${Math.random().toString(36).slice(2)}`;
    const ra = await publish(a, t.token, ev, { 'idempotency-key': k });
    const rb = await publish(b, t.token, ev, { 'idempotency-key': k });
    expect([ra.status, rb.status]).toEqual([202, 202]);
    expect(rb.headers.get('idempotent-replayed')).toBe('true');
    expect(rb.text).toBe(ra.text);
    const conflict = await publish(b, t.token, event(a), { 'idempotency-key': k });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('idempotency_key_reused');
    const rows = await a.svc.deps.orm.em
      .getConnection()
      .execute(`select fire_count from deliveries where token_id = ? and event_id = ?`, [t.tokenId, ev.event_id]);
    expect(rows).toEqual([{ fire_count: 1 }]);
  });

  it('a token revoked in the database is refused by both at once with 401 token_revoked', async () => {
    const t = await newPersonalToken(a);
    // Twice on each: both processes now serve this token's principal from their caches.
    for (const h of [a, b, a, b]) expect((await publish(h, t.token, event(a))).status).toBe(202);
    await a.svc.deps.orm.em.getConnection().execute(`update inbound_tokens set status = 'revoked', revoked_at = now() where id = ?`, [t.tokenId]);
    for (const h of [a, b]) {
      const r = await publish(h, t.token, event(a));
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({ status: 401, code: 'token_revoked' });
      expect(r.body.type).toMatch(/\/unauthorized$/);
    }
    const rows = await a.svc.deps.orm.em.getConnection().execute(`select count(*)::int as n from deliveries where token_id = ?`, [t.tokenId]);
    expect(rows).toEqual([{ n: 4 }]);
  });
});
