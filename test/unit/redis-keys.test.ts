// Redis Cluster readiness of the stores' keys: every key the rate limiter and the idempotency store
// build has exactly one `{...}` hash tag, and it is the caller's (`tok:<token id>`), whatever text a
// client puts in its Idempotency-Key; so each script touches one slot and a caller's keys share it.
// Checked on the key builders (property) and on the keys the stores really write (shared Redis).
// Also: the REDIS_URL forms (one server, cluster).
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { idempotencyKey, RedisIdempotencyStore } from '../../src/infra/idempotency/idempotency-store.js';
import { RedisRateLimiter, rateLimitKey } from '../../src/infra/rate-limit/rate-limiter.js';
import { parseRedisUrl } from '../../src/infra/redis-url.js';
import { REDIS_URL } from '../helpers/harness.js';

/** The hash tag Redis Cluster uses: between the first `{` and the next `}`, when not empty. */
function hashTag(key: string): string | null {
  const open = key.indexOf('{');
  const close = key.indexOf('}', open + 1);
  return open >= 0 && close > open + 1 ? key.slice(open + 1, close) : null;
}

function expectOneTag(key: string, tag: string): void {
  expect(key.match(/[{}]/g), key).toEqual(['{', '}']);
  expect(hashTag(key), key).toBe(tag);
}

/** What a client may send as Idempotency-Key (1-200 visible ASCII), braces and `%` made likely. */
const idemKeyArb = fc.string({
  unit: fc.oneof(
    fc.constantFrom('{', '}', '%', ':'),
    fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  ),
  minLength: 1,
  maxLength: 200,
});
const OPS = ['events.publish', 'events.supplement', 'events.resolve'];

describe('key builders', () => {
  it('a rate-limit window key has the caller tag as its only hash tag', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.constantFrom('', ':req', ':day'), (id, suffix) => {
        expectOneTag(rateLimitKey(`tok:${id}`, suffix), `tok:${id}`);
      }),
    );
    // Braces in a tag or suffix cannot make a second tag or move the slot.
    expectOneTag(rateLimitKey('tok:a{b}', ':x}{y'), 'tok:a%7Bb%7D');
  });

  it('an idempotency record key has the caller tag as its only hash tag, whatever the Idempotency-Key', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.constantFrom(...OPS), idemKeyArb, (id, op, key) => {
        const built = idempotencyKey(`${id}:${op}:${key}`);
        expectOneTag(built, `tok:${id}`);
        // The same tag, hence the same slot, as the caller's rate-limit windows.
        expect(hashTag(built)).toBe(hashTag(rateLimitKey(`tok:${id}`, '')));
      }),
      { numRuns: 500 },
    );
  });

  it('distinct Idempotency-Keys stay distinct records (the escaping is one-to-one)', () => {
    fc.assert(
      fc.property(fc.uuid(), idemKeyArb, idemKeyArb, (id, k1, k2) => {
        fc.pre(k1 !== k2);
        expect(idempotencyKey(`${id}:events.publish:${k1}`)).not.toBe(idempotencyKey(`${id}:events.publish:${k2}`));
      }),
      { numRuns: 500 },
    );
    expect(idempotencyKey('t:op:%7B')).not.toBe(idempotencyKey('t:op:{'));
  });
});

describe('the keys the stores write (shared Redis)', () => {
  let redis: Redis;
  const ids = Array.from({ length: 4 }, () => randomUUID());
  const ownKeys = async () => (await Promise.all(ids.map((id) => redis.keys(`*${id}*`)))).flat();
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  });
  afterAll(async () => {
    const keys = await ownKeys();
    if (keys.length > 0) await redis.del(...keys);
    redis?.disconnect();
  });

  it('every key written by the rate limiter and the idempotency store has the caller tag as its only hash tag', async () => {
    const rl = new RedisRateLimiter(redis);
    const idem = new RedisIdempotencyStore(redis);
    const now = Date.now();
    // Concurrent calls of several callers: one script run on one server.
    await Promise.all(
      ids.flatMap((id) => [
        rl.hitAll(`tok:${id}`, [{ suffix: '', limit: 60, windowMs: 60_000 }], now),
        rl.hitAll(`tok:${id}`, [{ suffix: ':req', limit: 600, windowMs: 60_000 }], now),
        rl.hitAll(
          `tok:${id}`,
          [
            { suffix: '', limit: 60, windowMs: 60_000 },
            { suffix: ':day', limit: 5000, windowMs: 86_400_000 },
          ],
          now,
        ),
      ]),
    );
    for (const [i, id] of ids.entries()) {
      for (const key of ['plain', 'a}{b', '{x}', `%7B${i}`]) {
        const k = `${id}:events.publish:${key}`;
        expect((await idem.begin(k, 'fp', 60_000)).state).toBe('started');
        await idem.complete(k, 'fp', { output: { ok: true } }, 60_000);
      }
      const abandoned = `${id}:events.resolve:gone}`;
      await idem.begin(abandoned, 'fp', 60_000);
      await idem.abandon(abandoned, 'fp');
    }
    const keys = await ownKeys();
    expect(keys).toHaveLength(ids.length * (3 + 4));
    for (const key of keys) {
      const id = ids.find((x) => key.includes(x))!;
      expectOneTag(key, `tok:${id}`);
    }
  });

  it('a record an older process wrote under the former key (`idem:{<key>}`) is still honoured on one server', async () => {
    const idem = new RedisIdempotencyStore(redis);
    const id = ids[0]!;
    const done = `${id}:events.publish:legacy-done`;
    await redis.set(`idem:{${done}}`, JSON.stringify({ s: 'done', f: 'fp', r: { output: { deliveryId: 'd1' } } }), 'PX', 60_000);
    expect(await idem.begin(done, 'fp', 60_000)).toEqual({ state: 'replay', response: { output: { deliveryId: 'd1' } } });
    expect(await idem.begin(done, 'other', 60_000)).toEqual({ state: 'mismatch' });
    const running = `${id}:events.publish:legacy-running`;
    await redis.set(`idem:{${running}}`, JSON.stringify({ s: 'in_flight', f: 'fp' }), 'PX', 60_000);
    expect(await idem.begin(running, 'fp', 60_000)).toEqual({ state: 'in_flight' });
  });
});

describe('REDIS_URL', () => {
  it('redis:// and rediss:// name one server, passed on as written', () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://user:pw@cache.example:6380/2']) expect(parseRedisUrl(url)).toEqual({ kind: 'single', url });
  });

  it('redis+cluster:// names a cluster by its seed nodes; credentials for every node; rediss+ for TLS', () => {
    expect(parseRedisUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001,cache-3,[::1]:7002/')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: 'cache-3', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      username: undefined,
      password: undefined,
      tls: false,
    });
    expect(parseRedisUrl('rediss+cluster://app:p%40ss:w@a:7000,b:7000')).toMatchObject({ kind: 'cluster', username: 'app', password: 'p@ss:w', tls: true });
    expect(parseRedisUrl('REDIS+CLUSTER://:secret@a:7000')).toMatchObject({ kind: 'cluster', username: undefined, password: 'secret', tls: false });
  });

  it('a malformed cluster URL is a readable configuration error that never repeats the password', () => {
    const secret = `pw-${randomBytes(4).toString('hex')}`;
    for (const bad of [
      `redis+cluster://:${secret}@`,
      `redis+cluster://:${secret}@a:7000,,b:7000`,
      `redis+cluster://:${secret}@a:70000`,
      `redis+cluster://:${secret}@a:7000/0`,
      `redis+cluster://:${secret}@a:7000?tls=1`,
      `redis+cluster://:${secret}@a:7000,b c:7000`,
      `redis+cluster://:%E0${secret}@a:7000`,
    ]) {
      let message = '';
      try {
        loadConfig({ REDIS_URL: bad });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, bad).toMatch(/^invalid configuration:\n {2}REDIS_URL: must be redis\+cluster:\/\//);
      expect(message).not.toContain(secret);
    }
  });
});

describe('REDIS_KEY_PREFIX', () => {
  it('visible ASCII without braces (a key keeps the hash tag its store gave it); unset is none', () => {
    expect(loadConfig({}).redisKeyPrefix).toBe('');
    expect(loadConfig({ REDIS_KEY_PREFIX: 'staging:' }).redisKeyPrefix).toBe('staging:');
    for (const bad of ['a{b', 'a}b', 'a b', 'a\u0000b', 'a\nb', 'é', 'x'.repeat(101)]) {
      expect(() => loadConfig({ REDIS_KEY_PREFIX: bad }), JSON.stringify(bad)).toThrow(/REDIS_KEY_PREFIX/);
    }
  });

  it('the stores write their keys behind it, in the same slot', async () => {
    const prefix = `t${randomBytes(4).toString('hex')}:`;
    const prefixed = new Redis(REDIS_URL, { keyPrefix: prefix });
    const plain = new Redis(REDIS_URL);
    try {
      const tag = `tok:${randomUUID()}`;
      await new RedisRateLimiter(prefixed).hitAll(tag, [{ suffix: '', limit: 5, windowMs: 60_000 }], Date.now());
      expect(await plain.exists(`${prefix}${rateLimitKey(tag, '')}`)).toBe(1);
      expect(await plain.exists(rateLimitKey(tag, ''))).toBe(0);
    } finally {
      prefixed.disconnect();
      plain.disconnect();
    }
  });
});
