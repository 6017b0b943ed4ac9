// Redis unreachable (inbound protocol 11 "Availability guarantees"): the rate limit fails open
// (events still accepted, X-RateLimit-* omitted, dedup still by PostgreSQL); requests carrying an
// Idempotency-Key fail closed with 503 idempotency_unavailable and Retry-After: 1, executing nothing.
// Uses a private redis-server, never the shared one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { privateRedis, waitFor, type PrivateRedis } from '../../helpers/redis-server.js';

let redis: PrivateRedis;
let h: Harness;
beforeAll(async () => {
  redis = await privateRedis();
  h = await startHarness({ redisUrl: redis.url });
});
afterAll(async () => {
  await h?.close();
  await redis?.dispose();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params);
const redisReady = () => h.svc.deps.redis?.status === 'ready';

describe('Redis down', () => {
  it('with Redis up, responses carry rate-limit headers and keys work', async () => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, event(h), { 'idempotency-key': 'up-1' });
    expect(r.status).toBe(202);
    expect(r.headers.get('x-ratelimit-limit')).toBe('60');
  });

  it('publishing fails open, keyed requests fail closed with 503, and keyed requests work again after Redis returns', async () => {
    const t = await newPersonalToken(h);
    const published = await publish(h, t.token, event(h));
    expect(published.status).toBe(202);

    await redis.stop();
    await waitFor(() => !redisReady());

    // Rate limit fails open: accepted, no X-RateLimit-* headers; dedup still holds.
    const ev = event(h);
    const open = await publish(h, t.token, ev);
    expect(open.status).toBe(202);
    expect(open.headers.get('x-ratelimit-limit')).toBeNull();
    expect(open.headers.get('x-ratelimit-remaining')).toBeNull();
    expect(open.headers.get('x-ratelimit-reset')).toBeNull();
    const repeat = await publish(h, t.token, ev);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ deliveryId: open.body.deliveryId, deduped: true, fireCount: 2 });

    // Idempotency-Key fails closed: 503, Retry-After 1, nothing stored.
    const keyed = event(h);
    const closed = await publish(h, t.token, keyed, { 'idempotency-key': 'down-1' });
    expect(closed.status).toBe(503);
    expect(closed.headers.get('retry-after')).toBe('1');
    expect(closed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(closed.body).toMatchObject({ status: 503, code: 'idempotency_unavailable' });
    // An outage, not an idempotency conflict.
    expect(closed.body.type).not.toMatch(/idempotency-conflict$/);
    expect(await sql(`select id from deliveries where token_id = ? and event_id = ?`, [t.tokenId, keyed.event_id])).toEqual([]);

    const sup = await http(h, 'POST', `/api/v1/events/${published.body.deliveryId}/supplement`, {
      token: t.token,
      body: { markdown_body: 'note' },
      headers: { 'idempotency-key': 'down-2' },
    });
    expect(sup.status).toBe(503);
    expect(sup.headers.get('retry-after')).toBe('1');
    expect(sup.body.code).toBe('idempotency_unavailable');
    expect(await sql(`select id from delivery_supplements where delivery_id = ?`, [published.body.deliveryId])).toEqual([]);

    // The legacy endpoint fails open too.
    const legacy = await http(h, 'POST', '/api/internal-os/integrations/inbound/personal', { token: t.token, body: event(h) });
    expect(legacy.status).toBe(202);

    // Back on the same port: ioredis reconnects; poll for recovery (not a time rule).
    await redis.start();
    await waitFor(redisReady, 10_000);
    let again = await publish(h, t.token, keyed, { 'idempotency-key': 'down-1' });
    await waitFor(
      async () => {
        if (again.status !== 503) return true;
        again = await publish(h, t.token, keyed, { 'idempotency-key': 'down-1' });
        return again.status !== 503;
      },
      10_000,
      100,
    );
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('x-ratelimit-limit')).toBe('60');

    const replay = await publish(h, t.token, keyed, { 'idempotency-key': 'down-1' });
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(again.text);
    expect(await sql(`select fire_count from deliveries where token_id = ? and event_id = ?`, [t.tokenId, keyed.event_id])).toEqual([{ fire_count: 1 }]);
  });
});
