// Sliding-window rate limiting behind a small interface: Redis (shared by every process) or
// in-process memory (embedded default, one process only).
import type { Redis } from 'ioredis';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix ms when the oldest counted hit leaves the window. */
  resetAtMs: number;
}

export interface RateLimiter {
  /** Counts one hit for `key` if allowed. Rejects (throws) when the store is unreachable. */
  hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateDecision>;
}

// Exact sliding log in one round trip: drop expired hits, count, add when allowed.
const SLIDING_LOG = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  redis.call('PEXPIRE', key, window)
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local reset = now + window
if oldest[2] then reset = tonumber(oldest[2]) + window end
return {allowed, count, reset}
`;

type SlidingRedis = Redis & {
  slidingLog(key: string, now: number, window: number, limit: number, member: string): Promise<[number, number, number]>;
};

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: SlidingRedis;
  private seq = 0;
  constructor(redis: Redis) {
    redis.defineCommand('slidingLog', { numberOfKeys: 1, lua: SLIDING_LOG });
    this.redis = redis as SlidingRedis;
  }
  async hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateDecision> {
    const member = `${nowMs}:${process.pid}:${this.seq++}:${Math.random().toString(36).slice(2, 8)}`;
    // Hash tag keeps the key single-slot on Redis Cluster.
    const [allowed, count, reset] = await this.redis.slidingLog(`rl:{${key}}`, nowMs, windowMs, limit, member);
    return { allowed: allowed === 1, limit, remaining: Math.max(0, limit - count), resetAtMs: reset };
  }
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly hits = new Map<string, number[]>();
  async hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateDecision> {
    const list = (this.hits.get(key) ?? []).filter((t) => t > nowMs - windowMs);
    let allowed = false;
    if (list.length < limit) {
      list.push(nowMs);
      allowed = true;
    }
    this.hits.set(key, list);
    if (this.hits.size > 100_000) this.sweep(nowMs, windowMs);
    return { allowed, limit, remaining: Math.max(0, limit - list.length), resetAtMs: (list[0] ?? nowMs) + windowMs };
  }
  private sweep(nowMs: number, windowMs: number): void {
    for (const [k, v] of this.hits) if ((v.at(-1) ?? 0) <= nowMs - windowMs) this.hits.delete(k);
  }
}
