// RateLimiter.hitAll: several windows of one caller in one round trip, all-or-nothing (the runner
// checks an agent token's per-minute and per-day windows with it). Same contract for the Redis and
// the in-memory store. Time is passed explicitly as nowMs; nothing sleeps.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from '../../src/infra/rate-limit/rate-limiter.js';
import { REDIS_URL } from '../helpers/harness.js';

let redis: Redis;
beforeAll(async () => {
  redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
});
afterAll(async () => {
  const keys = await redis.keys(`rl:{hitall-${RUN}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis?.disconnect();
});

const RUN = randomBytes(6).toString('hex');
let seq = 0;
const uniqueTag = () => `hitall-${RUN}-${seq++}`;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const T0 = 1_800_000_000_000;
const windows = [
  { suffix: '', limit: 3, windowMs: MINUTE },
  { suffix: ':day', limit: 5, windowMs: DAY },
];

describe.each<[string, () => RateLimiter]>([
  ['RedisRateLimiter', () => new RedisRateLimiter(redis)],
  ['MemoryRateLimiter', () => new MemoryRateLimiter()],
])('RateLimiter.hitAll: %s', (_name, make) => {
  it('counts in every window while all allow; a refusal by one window counts in none', async () => {
    const rl = make();
    const tag = uniqueTag();
    for (let i = 0; i < 3; i++) {
      const d = await rl.hitAll(tag, windows, T0 + i);
      expect(d.map((x) => [x.allowed, x.remaining])).toEqual([
        [true, 2 - i],
        [true, 4 - i],
      ]);
    }
    // The minute window is full: refused, and the day window did not count it.
    const refused = await rl.hitAll(tag, windows, T0 + 10);
    expect(refused.map((x) => [x.allowed, x.remaining])).toEqual([
      [false, 0],
      [true, 2],
    ]);
    expect(refused[0]!.resetAtMs).toBe(T0 + MINUTE);

    // A minute later: two more fit the day window, then the day window refuses and the minute
    // window keeps its room.
    const later = T0 + MINUTE + 1;
    expect((await rl.hitAll(tag, windows, later)).every((x) => x.allowed)).toBe(true);
    expect((await rl.hitAll(tag, windows, later + 1)).map((x) => x.remaining)).toEqual([1, 0]);
    const byDay = await rl.hitAll(tag, windows, later + 2);
    expect(byDay.map((x) => [x.allowed, x.remaining])).toEqual([
      [true, 1],
      [false, 0],
    ]);
    expect(byDay[1]!.resetAtMs).toBe(T0 + DAY);
  });

  it('concurrent calls of several callers (one script run on Redis) count each call as if alone, in call order', async () => {
    const rl = make();
    const a = uniqueTag();
    const b = uniqueTag();
    const one = [{ suffix: '', limit: 4, windowMs: MINUTE }];
    // Interleaved: even calls are caller a (minute 3, day 5), odd calls caller b (minute 4).
    const ds = await Promise.all(Array.from({ length: 12 }, (_, i) => rl.hitAll(i % 2 === 0 ? a : b, i % 2 === 0 ? windows : one, T0 + i)));
    const mine = (parity: number) => ds.filter((_, i) => i % 2 === parity);
    expect(mine(0).map((d) => d.map((x) => x.allowed))).toEqual([
      [true, true],
      [true, true],
      [true, true],
      [false, true],
      [false, true],
      [false, true],
    ]);
    expect(mine(0).map((d) => d[1]!.remaining)).toEqual([4, 3, 2, 2, 2, 2]);
    expect(mine(1).map((d) => [d.length, d[0]!.allowed, d[0]!.remaining])).toEqual([
      [1, true, 3],
      [1, true, 2],
      [1, true, 1],
      [1, true, 0],
      [1, false, 0],
      [1, false, 0],
    ]);
    expect(mine(1)[4]![0]!.resetAtMs).toBe(T0 + 1 + MINUTE);
  });

  it('the first window is the key hit() uses for the same tag', async () => {
    const rl = make();
    const tag = uniqueTag();
    await rl.hit(tag, 3, MINUTE, T0);
    await rl.hit(tag, 3, MINUTE, T0 + 1);
    const d = await rl.hitAll(tag, windows, T0 + 2);
    expect(d[0]).toMatchObject({ allowed: true, remaining: 0 });
    expect((await rl.hit(tag, 3, MINUTE, T0 + 3)).allowed).toBe(false);
  });
  it('a cost of n counts n hits at once, or none when they do not all fit; Retry-After is when the whole cost fits', async () => {
    const rl = make();
    const tag = uniqueTag();
    const one = [{ suffix: '', limit: 5, windowMs: MINUTE }];
    expect((await rl.hitAll(tag, one, T0, 2))[0]).toMatchObject({ allowed: true, remaining: 3 });
    expect((await rl.hitAll(tag, one, T0 + 1000, 2))[0]).toMatchObject({ allowed: true, remaining: 1 });
    // 2 more do not fit (1 left): nothing counted; enough room once the first two hits (T0) have left.
    const refused = (await rl.hitAll(tag, one, T0 + 2000, 2))[0]!;
    expect(refused).toMatchObject({ allowed: false, remaining: 1, resetAtMs: T0 + MINUTE });
    const refused3 = (await rl.hitAll(tag, one, T0 + 2000, 4))[0]!;
    expect(refused3).toMatchObject({ allowed: false, resetAtMs: T0 + 1000 + MINUTE });
    expect((await rl.hitAll(tag, one, T0 + 2000, 1))[0]).toMatchObject({ allowed: true, remaining: 0 });
    expect((await rl.hitAll(tag, one, T0 + MINUTE + 1, 2))[0]).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('peekAll reports the windows and counts nothing', async () => {
    const rl = make();
    const tag = uniqueTag();
    expect(await rl.peekAll(tag, windows, T0)).toEqual([
      { allowed: true, limit: 3, remaining: 3, resetAtMs: T0 + MINUTE },
      { allowed: true, limit: 5, remaining: 5, resetAtMs: T0 + DAY },
    ]);
    await rl.hitAll(tag, windows, T0);
    await rl.hitAll(tag, windows, T0 + 10);
    for (let i = 0; i < 3; i++) {
      expect(await rl.peekAll(tag, windows, T0 + 20)).toEqual([
        { allowed: true, limit: 3, remaining: 1, resetAtMs: T0 + MINUTE },
        { allowed: true, limit: 5, remaining: 3, resetAtMs: T0 + DAY },
      ]);
    }
    // After the minute, the minute window is empty again; the day window still holds both.
    expect(await rl.peekAll(tag, windows, T0 + MINUTE + 10)).toEqual([
      { allowed: true, limit: 3, remaining: 3, resetAtMs: T0 + 2 * MINUTE + 10 },
      { allowed: true, limit: 5, remaining: 3, resetAtMs: T0 + DAY },
    ]);
    expect((await rl.hitAll(tag, windows, T0 + 30))[0]).toMatchObject({ remaining: 0 });
  });
});
