// Embedded mode (no DATABASE_URL, no REDIS_URL): PGlite under DATA_DIR and the in-process rate
// limiter and idempotency store. Same behaviour as the server mode, one process per DATA_DIR.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { startService } from '../../../src/main.js';
import { MemoryIdempotencyStore } from '../../../src/infra/idempotency/idempotency-store.js';
import { MemoryRateLimiter } from '../../../src/infra/rate-limit/rate-limiter.js';
import { event, http, newPersonalToken, publish, publishLegacy, startHarness, type Harness } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: 'embedded' });
});
afterAll(async () => {
  await h?.close();
});

describe('embedded mode', () => {
  it('runs on PGlite with in-process stores', () => {
    expect(h.databaseUrl).toBeUndefined();
    expect(h.svc.deps.redis).toBeNull();
    expect(h.svc.deps.rateLimiter).toBeInstanceOf(MemoryRateLimiter);
    expect(h.svc.deps.idempotency).toBeInstanceOf(MemoryIdempotencyStore);
  });

  it('publish: 202 first, 200 dedup with the same deliveryId and fireCount 2', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h);
    const first = await publish(h, t.token, ev);
    const second = await publish(h, t.token, ev);
    expect([first.status, second.status]).toEqual([202, 200]);
    expect(second.body).toMatchObject({ deliveryId: first.body.deliveryId, deduped: true, fireCount: 2 });
    const read = await http(h, 'GET', `/api/v1/events/${first.body.deliveryId}`, { token: t.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ deliveryId: first.body.deliveryId, fireCount: 2 });
  });

  it('Idempotency-Key: same key and body replays; different body is 409 idempotency_key_reused', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h);
    const first = await publish(h, t.token, ev, { 'idempotency-key': 'emb-1' });
    const replay = await publish(h, t.token, ev, { 'idempotency-key': 'emb-1' });
    expect([first.status, replay.status]).toEqual([202, 202]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    const conflict = await publish(h, t.token, event(h), { 'idempotency-key': 'emb-1' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('idempotency_key_reused');
    const rows = await h.svc.deps.orm.em
      .getConnection()
      .execute(`select fire_count from deliveries where token_id = ? and event_id = ?`, [t.tokenId, ev.event_id]);
    expect(rows).toEqual([{ fire_count: 1 }]);
  });

  it('rate limit: 60 per minute per token across both endpoints, the 61st is 429, a minute later allowed', async () => {
    const t = await newPersonalToken(h);
    for (let i = 0; i < 60; i++) {
      const r = i % 2 === 0 ? await publish(h, t.token, event(h)) : await publishLegacy(h, t.token, event(h));
      expect(r.status).toBe(202);
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(59 - i));
    }
    const over = await publish(h, t.token, event(h));
    expect(over.status).toBe(429);
    expect(over.body.code).toBe('rate_limited');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(over.headers.get('x-ratelimit-limit')).toBe('60');
    const other = await newPersonalToken(h);
    expect((await publish(h, other.token, event(h))).status).toBe(202);
    h.clock.advance(60_001);
    expect((await publish(h, t.token, event(h))).status).toBe(202);
  });

  it('a second service on the same DATA_DIR fails with a clear "in use" error, and the first keeps serving', async () => {
    const dataDir = path.dirname(h.svc.deps.lock!.file);
    const config = loadConfig({ PORT: '0', GRPC_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATA_DIR: dataDir }, '0.25.935');
    await expect(startService(config)).rejects.toThrow(/DATA_DIR .* is in use by process \d+/);
    const t = await newPersonalToken(h);
    expect((await publish(h, t.token, event(h))).status).toBe(202);
  });
});
