// Idempotency-Key state machine (Stripe/IETF draft): absent -> in_flight(fingerprint) ->
// completed(fingerprint, response). Redis (shared) or memory (embedded default).
import type { Redis, Cluster } from 'ioredis';
import { escapeBraces } from '../redis-client.js';

export interface StoredResponse {
  output: unknown;
}

export type BeginResult = { state: 'started' } | { state: 'in_flight' } | { state: 'mismatch' } | { state: 'replay'; response: StoredResponse };

export interface IdempotencyStore {
  /** `key` is `<scope>:<rest>`: the scope (the caller's principal, up to the first `:`) groups its records. */
  begin(key: string, fingerprint: string, lockMs: number): Promise<BeginResult>;
  complete(key: string, fingerprint: string, response: StoredResponse, ttlMs: number): Promise<void>;
  /** Forget an in-flight marker (the operation failed; failures are not stored). */
  abandon(key: string, fingerprint: string): Promise<void>;
}

// KEYS[2], when given, is the record's key before hash tags were per caller (legacyKey): read only.
const BEGIN = `
local cur = redis.call('GET', KEYS[1])
if not cur and KEYS[2] then cur = redis.call('GET', KEYS[2]) end
if not cur then
  redis.call('SET', KEYS[1], cjson.encode({s='in_flight', f=ARGV[1]}), 'PX', ARGV[2])
  return {'started'}
end
local d = cjson.decode(cur)
if d.f ~= ARGV[1] then return {'mismatch'} end
if d.s == 'in_flight' then return {'in_flight'} end
return {'replay', cur}
`;
const ABANDON = `
local cur = redis.call('GET', KEYS[1])
if cur then
  local d = cjson.decode(cur)
  if d.s == 'in_flight' and d.f == ARGV[1] then redis.call('DEL', KEYS[1]) end
end
return 1
`;

type IdemRedis = (Redis | Cluster) & {
  idemBegin(numKeys: number, ...keysAndArgs: Array<string | number>): Promise<[string, string?]>;
  idemAbandon(key: string, fp: string): Promise<number>;
};

/**
 * A record's key: `idem:{tok:<scope>}:<rest>`. The hash tag is the caller's, the same as its
 * rate-limit windows (`rl:{tok:<token id>}`, run-operation.ts): all of a caller's keys sit in one
 * Redis Cluster slot, so a node that is down affects the same callers for both. The rest holds the
 * client's Idempotency-Key, any visible ASCII: braces (and `%`) are percent-encoded, so the key has
 * exactly one `{...}` and a client cannot choose the slot.
 */
export function idempotencyKey(key: string): string {
  const colon = key.indexOf(':');
  const scope = colon >= 0 ? key.slice(0, colon) : key;
  return `idem:{tok:${escapeBraces(scope)}}${colon >= 0 ? escapeBraces(key.slice(colon)) : ''}`;
}

/**
 * The key the same record had before (`idem:{<whole key>}`), written by an older process during a
 * rolling upgrade: begin() on one server still finds it (replay, conflict, in flight) for the 24 h the
 * records live. A cluster has no such records (and the two keys may lie in different slots).
 */
const legacyKey = (key: string) => `idem:{${key}}`;

export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly redis: IdemRedis;
  private readonly withLegacy: boolean;
  constructor(redis: Redis | Cluster) {
    redis.defineCommand('idemBegin', { lua: BEGIN });
    redis.defineCommand('idemAbandon', { numberOfKeys: 1, lua: ABANDON });
    this.redis = redis as IdemRedis;
    this.withLegacy = !redis.isCluster;
  }
  async begin(key: string, fingerprint: string, lockMs: number): Promise<BeginResult> {
    const [state, raw] = this.withLegacy
      ? await this.redis.idemBegin(2, idempotencyKey(key), legacyKey(key), fingerprint, lockMs)
      : await this.redis.idemBegin(1, idempotencyKey(key), fingerprint, lockMs);
    if (state === 'replay') return { state, response: (JSON.parse(raw!) as { r: StoredResponse }).r };
    return { state: state as 'started' | 'in_flight' | 'mismatch' };
  }
  async complete(key: string, fingerprint: string, response: StoredResponse, ttlMs: number): Promise<void> {
    await this.redis.set(idempotencyKey(key), JSON.stringify({ s: 'done', f: fingerprint, r: response }), 'PX', ttlMs);
  }
  async abandon(key: string, fingerprint: string): Promise<void> {
    await this.redis.idemAbandon(idempotencyKey(key), fingerprint);
  }
}

interface MemEntry {
  s: 'in_flight' | 'done';
  f: string;
  r?: StoredResponse;
  expiresAt: number;
}

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, MemEntry>();
  async begin(key: string, fingerprint: string, lockMs: number): Promise<BeginResult> {
    const now = Date.now();
    const cur = this.entries.get(key);
    if (!cur || cur.expiresAt <= now) {
      this.entries.set(key, { s: 'in_flight', f: fingerprint, expiresAt: now + lockMs });
      return { state: 'started' };
    }
    if (cur.f !== fingerprint) return { state: 'mismatch' };
    if (cur.s === 'in_flight') return { state: 'in_flight' };
    return { state: 'replay', response: cur.r! };
  }
  async complete(key: string, fingerprint: string, response: StoredResponse, ttlMs: number): Promise<void> {
    this.entries.set(key, { s: 'done', f: fingerprint, r: response, expiresAt: Date.now() + ttlMs });
    if (this.entries.size > 10_000) this.sweep();
  }
  /** Expired records leave memory (the embedded store has no TTL of its own). */
  private sweep(): void {
    const now = Date.now();
    for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
  }
  async abandon(key: string, fingerprint: string): Promise<void> {
    const cur = this.entries.get(key);
    if (cur && cur.s === 'in_flight' && cur.f === fingerprint) this.entries.delete(key);
  }
}
