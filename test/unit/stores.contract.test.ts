// One contract, two implementations: the Redis stores (shared by every process) and the in-memory
// stores (embedded mode) must answer alike: src/deps.ts picks one, and callers see only the interface.
// Time is passed explicitly as nowMs; nothing sleeps.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from '../../src/infra/rate-limit/rate-limiter.js';
import { MemoryIdempotencyStore, RedisIdempotencyStore, type IdempotencyStore } from '../../src/infra/idempotency/idempotency-store.js';
import { REDIS_URL } from '../helpers/harness.js';

let redis: Redis;
beforeAll(async () => {
  redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
});
afterAll(async () => {
  // Leave nothing behind on the shared Redis.
  const keys = [...(await redis.keys(`rl:{contract-${RUN}*`)), ...(await redis.keys(`idem:{contract-${RUN}*`))];
  if (keys.length > 0) await redis.del(...keys);
  redis?.disconnect();
});

const RUN = randomBytes(6).toString('hex');
let seq = 0;
/** Unique per test, so tests never share state on the shared Redis. */
const uniqueKey = (tag: string) => `contract-${RUN}-${tag}-${seq++}`;

const WINDOW = 60_000;
const T0 = 1_800_000_000_000; // a fixed instant; every call passes its own "now"

const rateLimiters: Array<[string, () => RateLimiter]> = [
  ['RedisRateLimiter', () => new RedisRateLimiter(redis)],
  ['MemoryRateLimiter', () => new MemoryRateLimiter()],
];

describe.each(rateLimiters)('RateLimiter contract: %s', (_name, make) => {
  it('limit N allows N hits, then refuses; remaining counts down to 0', async () => {
    const rl = make();
    const key = uniqueKey('n');
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const d = await rl.hit(key, 5, WINDOW, T0 + i);
      expect(d.allowed).toBe(true);
      expect(d.limit).toBe(5);
      remaining.push(d.remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const refused = await rl.hit(key, 5, WINDOW, T0 + 10);
    expect(refused).toMatchObject({ allowed: false, limit: 5, remaining: 0 });
    // A refused hit is not counted: still refused, still 0 remaining.
    expect(await rl.hit(key, 5, WINDOW, T0 + 11)).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('resetAtMs is the oldest counted hit plus the window', async () => {
    const rl = make();
    const key = uniqueKey('reset');
    const first = await rl.hit(key, 3, WINDOW, T0 + 100);
    expect(first.resetAtMs).toBe(T0 + 100 + WINDOW);
    expect((await rl.hit(key, 3, WINDOW, T0 + 5_000)).resetAtMs).toBe(T0 + 100 + WINDOW);
    await rl.hit(key, 3, WINDOW, T0 + 9_000);
    const refused = await rl.hit(key, 3, WINDOW, T0 + 20_000);
    expect(refused.allowed).toBe(false);
    expect(refused.resetAtMs).toBe(T0 + 100 + WINDOW);
  });

  it('slides: hits older than the window stop counting, one by one', async () => {
    const rl = make();
    const key = uniqueKey('slide');
    await rl.hit(key, 3, WINDOW, T0);
    await rl.hit(key, 3, WINDOW, T0 + 10_000);
    await rl.hit(key, 3, WINDOW, T0 + 20_000);
    expect((await rl.hit(key, 3, WINDOW, T0 + 59_999)).allowed).toBe(false);
    // At T0 + window the first hit has left the window: exactly one slot frees up.
    const freed = await rl.hit(key, 3, WINDOW, T0 + WINDOW);
    expect(freed).toMatchObject({ allowed: true, remaining: 0 });
    expect(freed.resetAtMs).toBe(T0 + 10_000 + WINDOW);
    expect((await rl.hit(key, 3, WINDOW, T0 + WINDOW + 1)).allowed).toBe(false);
    // Once every hit is older than the window, the full budget is back.
    const fresh = await rl.hit(key, 3, WINDOW, T0 + 200_000);
    expect(fresh).toMatchObject({ allowed: true, remaining: 2, resetAtMs: T0 + 200_000 + WINDOW });
  });

  it('keys are independent', async () => {
    const rl = make();
    const a = uniqueKey('a');
    const b = uniqueKey('b');
    await rl.hit(a, 1, WINDOW, T0);
    expect((await rl.hit(a, 1, WINDOW, T0 + 1)).allowed).toBe(false);
    expect(await rl.hit(b, 1, WINDOW, T0 + 1)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('concurrent hits never exceed the limit', async () => {
    const rl = make();
    const key = uniqueKey('conc');
    const ds = await Promise.all(Array.from({ length: 25 }, (_, i) => rl.hit(key, 10, WINDOW, T0 + i)));
    expect(ds.filter((d) => d.allowed)).toHaveLength(10);
  });
});

const idempotencyStores: Array<[string, () => IdempotencyStore]> = [
  ['RedisIdempotencyStore', () => new RedisIdempotencyStore(redis)],
  ['MemoryIdempotencyStore', () => new MemoryIdempotencyStore()],
];

const LOCK_MS = 60_000;
const TTL_MS = 24 * 60 * 60 * 1000;

describe.each(idempotencyStores)('IdempotencyStore contract: %s', (_name, make) => {
  it('begin on a fresh key starts', async () => {
    const s = make();
    expect(await s.begin(uniqueKey('fresh'), 'fp1', LOCK_MS)).toEqual({ state: 'started' });
  });

  it('a second begin with the same fingerprint while the first runs is in_flight', async () => {
    const s = make();
    const key = uniqueKey('inflight');
    expect((await s.begin(key, 'fp1', LOCK_MS)).state).toBe('started');
    expect(await s.begin(key, 'fp1', LOCK_MS)).toEqual({ state: 'in_flight' });
  });

  it('concurrent begins: exactly one starts', async () => {
    const s = make();
    const key = uniqueKey('race');
    const rs = await Promise.all(Array.from({ length: 10 }, () => s.begin(key, 'fp1', LOCK_MS)));
    expect(rs.filter((r) => r.state === 'started')).toHaveLength(1);
    expect(rs.filter((r) => r.state === 'in_flight')).toHaveLength(9);
  });

  it('a different fingerprint is a mismatch, while in flight and after completion', async () => {
    const s = make();
    const key = uniqueKey('mismatch');
    await s.begin(key, 'fp1', LOCK_MS);
    expect(await s.begin(key, 'fp2', LOCK_MS)).toEqual({ state: 'mismatch' });
    await s.complete(key, 'fp1', { output: { n: 1 } }, TTL_MS);
    expect(await s.begin(key, 'fp2', LOCK_MS)).toEqual({ state: 'mismatch' });
  });

  it('complete then begin with the same fingerprint replays the stored output', async () => {
    const s = make();
    const key = uniqueKey('replay');
    const output = { created: true, delivery: { deliveryId: 'd-1', fireCount: 1, supplements: [{ id: 's', markdownBody: 'x' }], resolvedAt: null } };
    await s.begin(key, 'fp1', LOCK_MS);
    await s.complete(key, 'fp1', { output }, TTL_MS);
    expect(await s.begin(key, 'fp1', LOCK_MS)).toEqual({ state: 'replay', response: { output } });
    // Replays are repeatable.
    expect(await s.begin(key, 'fp1', LOCK_MS)).toEqual({ state: 'replay', response: { output } });
  });

  it('abandon clears an in-flight marker of the same fingerprint, so the key can start again', async () => {
    const s = make();
    const key = uniqueKey('abandon');
    await s.begin(key, 'fp1', LOCK_MS);
    await s.abandon(key, 'fp1');
    expect(await s.begin(key, 'fp1', LOCK_MS)).toEqual({ state: 'started' });
  });

  it('abandon with another fingerprint leaves the in-flight marker alone', async () => {
    const s = make();
    const key = uniqueKey('abandon-other');
    await s.begin(key, 'fp1', LOCK_MS);
    await s.abandon(key, 'fp2');
    expect(await s.begin(key, 'fp1', LOCK_MS)).toEqual({ state: 'in_flight' });
  });

  it('abandon never deletes a completed response', async () => {
    const s = make();
    const key = uniqueKey('abandon-done');
    await s.begin(key, 'fp1', LOCK_MS);
    await s.complete(key, 'fp1', { output: 'kept' }, TTL_MS);
    await s.abandon(key, 'fp1');
    expect(await s.begin(key, 'fp1', LOCK_MS)).toEqual({ state: 'replay', response: { output: 'kept' } });
  });

  it('abandon of an unknown key is a no-op', async () => {
    const s = make();
    await expect(s.abandon(uniqueKey('none'), 'fp1')).resolves.toBeUndefined();
  });
});
