// Idempotency-Key state machine (Stripe/IETF draft): absent -> in_flight(fingerprint) ->
// completed(fingerprint, response). Redis (shared) or memory (embedded default).
import type { Redis } from 'ioredis';

export interface StoredResponse {
  output: unknown;
}

export type BeginResult =
  | { state: 'started' }
  | { state: 'in_flight' }
  | { state: 'mismatch' }
  | { state: 'replay'; response: StoredResponse };

export interface IdempotencyStore {
  begin(key: string, fingerprint: string, lockMs: number): Promise<BeginResult>;
  complete(key: string, fingerprint: string, response: StoredResponse, ttlMs: number): Promise<void>;
  /** Forget an in-flight marker (the operation failed; failures are not stored). */
  abandon(key: string, fingerprint: string): Promise<void>;
}

const BEGIN = `
local cur = redis.call('GET', KEYS[1])
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

type IdemRedis = Redis & {
  idemBegin(key: string, fp: string, lockMs: number): Promise<[string, string?]>;
  idemAbandon(key: string, fp: string): Promise<number>;
};

export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly redis: IdemRedis;
  constructor(redis: Redis) {
    redis.defineCommand('idemBegin', { numberOfKeys: 1, lua: BEGIN });
    redis.defineCommand('idemAbandon', { numberOfKeys: 1, lua: ABANDON });
    this.redis = redis as IdemRedis;
  }
  async begin(key: string, fingerprint: string, lockMs: number): Promise<BeginResult> {
    const [state, raw] = await this.redis.idemBegin(`idem:{${key}}`, fingerprint, lockMs);
    if (state === 'replay') return { state, response: (JSON.parse(raw!) as { r: StoredResponse }).r };
    return { state: state as 'started' | 'in_flight' | 'mismatch' };
  }
  async complete(key: string, fingerprint: string, response: StoredResponse, ttlMs: number): Promise<void> {
    await this.redis.set(`idem:{${key}}`, JSON.stringify({ s: 'done', f: fingerprint, r: response }), 'PX', ttlMs);
  }
  async abandon(key: string, fingerprint: string): Promise<void> {
    await this.redis.idemAbandon(`idem:{${key}}`, fingerprint);
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
