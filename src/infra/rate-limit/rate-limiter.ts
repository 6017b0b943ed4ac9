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

export interface RateWindow {
  /** Appended to the tag: the window's own key. */
  suffix: string;
  limit: number;
  windowMs: number;
}

export interface RateLimiter {
  /** Counts one hit for `key` if allowed. Rejects (throws) when the store is unreachable. */
  hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateDecision>;
  /**
   * Several windows of one caller (e.g. per minute and per day) in ONE round trip and atomically:
   * the hit is counted in every window when all of them allow it, and in none otherwise (a refused
   * request uses up no window). One decision per window, in order. The keys share `tag` as their
   * hash tag (`rl:{tag}<suffix>`), so they stay in one slot on Redis Cluster.
   */
  hitAll(tag: string, windows: readonly RateWindow[], nowMs: number): Promise<RateDecision[]>;
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

// The same log over N keys: count all, add to all only when every window has room.
// ARGV: now, member, then (window, limit) per key. Returns allowed, then (count, reset) per key.
const SLIDING_LOG_ALL = `
local now = tonumber(ARGV[1])
local counts = {}
local allowed = 1
for i = 1, #KEYS do
  local window = tonumber(ARGV[1 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  counts[i] = redis.call('ZCARD', KEYS[i])
  if counts[i] >= tonumber(ARGV[2 + 2 * i]) then allowed = 0 end
end
local out = {allowed}
for i = 1, #KEYS do
  local window = tonumber(ARGV[1 + 2 * i])
  if allowed == 1 then
    redis.call('ZADD', KEYS[i], now, ARGV[2])
    redis.call('PEXPIRE', KEYS[i], window)
    counts[i] = counts[i] + 1
  end
  local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  local reset = now + window
  if oldest[2] then reset = tonumber(oldest[2]) + window end
  out[#out + 1] = counts[i]
  out[#out + 1] = reset
end
return out
`;

type SlidingRedis = Redis & {
  slidingLog(key: string, now: number, window: number, limit: number, member: string): Promise<[number, number, number]>;
  slidingLogAll(numKeys: number, ...args: Array<string | number>): Promise<number[]>;
};

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: SlidingRedis;
  private seq = 0;
  constructor(redis: Redis) {
    redis.defineCommand('slidingLog', { numberOfKeys: 1, lua: SLIDING_LOG });
    redis.defineCommand('slidingLogAll', { lua: SLIDING_LOG_ALL });
    this.redis = redis as SlidingRedis;
  }
  async hitAll(tag: string, windows: readonly RateWindow[], nowMs: number): Promise<RateDecision[]> {
    const member = `${nowMs}:${process.pid}:${this.seq++}:${Math.random().toString(36).slice(2, 8)}`;
    const keys = windows.map((w) => `rl:{${tag}}${w.suffix}`);
    const out = await this.redis.slidingLogAll(keys.length, ...keys, nowMs, member, ...windows.flatMap((w) => [w.windowMs, w.limit]));
    const allowed = out[0] === 1;
    return windows.map((w, i) => ({ allowed: allowed || out[1 + 2 * i]! < w.limit, limit: w.limit, remaining: Math.max(0, w.limit - out[1 + 2 * i]!), resetAtMs: out[2 + 2 * i]! }));
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
  async hitAll(tag: string, windows: readonly RateWindow[], nowMs: number): Promise<RateDecision[]> {
    const lists = windows.map((w) => {
      const key = `${tag}${w.suffix}`;
      const list = (this.hits.get(key) ?? []).filter((t) => t > nowMs - w.windowMs);
      this.hits.set(key, list);
      return list;
    });
    const allowed = windows.every((w, i) => lists[i]!.length < w.limit);
    if (allowed) for (const list of lists) list.push(nowMs);
    if (this.hits.size > 100_000) this.sweep(nowMs, Math.max(...windows.map((w) => w.windowMs)));
    return windows.map((w, i) => ({
      allowed: allowed || lists[i]!.length < w.limit,
      limit: w.limit,
      remaining: Math.max(0, w.limit - lists[i]!.length),
      resetAtMs: (lists[i]![0] ?? nowMs) + w.windowMs,
    }));
  }
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
