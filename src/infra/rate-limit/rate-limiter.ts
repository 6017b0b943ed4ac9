// Sliding-window rate limiting behind a small interface: Redis (shared by every process) or
// in-process memory (embedded default, one process only).
import type { Redis, Cluster } from 'ioredis';
import { TickBatcher } from '../tick-batcher.js';
import { escapeBraces } from '../redis-client.js';
import type { RateWindowReader } from '../../domain/ports.js';
import { RATE_BUDGETS, windowTag } from '../../domain/rate-budgets.rules.js';

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
  hitAll(tag: string, windows: readonly RateWindow[], nowMs: number, cost?: number): Promise<RateDecision[]>;
  /**
   * The windows as hitAll would see them now, counting nothing (GET /api/v1/tokens/self reports
   * them): `allowed` tells whether one more hit would be. Rejects when the store is unreachable.
   */
  peekAll(tag: string, windows: readonly RateWindow[], nowMs: number): Promise<RateDecision[]>;
}

// Exact sliding log for a batch of calls, each over its own keys (one caller's windows; hit() is a
// call with one window): per call, drop expired hits (only when the oldest hit is outside the
// window: on a steady stream it is read, not searched for and removed on every call), count every
// window, and add to all of them only when every one has room. One script run for the calls of one
// turn of the event loop: running a script costs Redis about 10 us before its first command, so
// the calls share it. The calls run one after another, each exactly as alone.
// A call may count `cost` hits at once (a webhook receiver counts one per alert): all of them when
// every window has room for all, none otherwise; a refused window's reset is when enough of its
// hits have left it for the whole cost to fit.
// ARGV: number of calls, then per call: now, member, cost, number of windows w, then (window,
// limit) per window; KEYS: the calls' keys in the same order. Returns per call: allowed, then
// (count, reset) per window.
const SLIDING_LOG_BATCH = `
local calls = tonumber(ARGV[1])
local a = 2
local k = 0
local out = {}
for c = 1, calls do
  local now = tonumber(ARGV[a])
  local member = ARGV[a + 1]
  local cost = tonumber(ARGV[a + 2])
  local w = tonumber(ARGV[a + 3])
  a = a + 4
  local counts = {}
  local oldest = {}
  local allowed = 1
  for i = 1, w do
    local key = KEYS[k + i]
    local window = tonumber(ARGV[a + 2 * (i - 1)])
    local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    if first[2] and tonumber(first[2]) <= now - window then
      redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
      first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    end
    oldest[i] = first[2] and tonumber(first[2]) or false
    counts[i] = redis.call('ZCARD', key)
    if counts[i] + cost > tonumber(ARGV[a + 2 * (i - 1) + 1]) then allowed = 0 end
  end
  out[#out + 1] = allowed
  for i = 1, w do
    local key = KEYS[k + i]
    local window = tonumber(ARGV[a + 2 * (i - 1)])
    local limit = tonumber(ARGV[a + 2 * (i - 1) + 1])
    if allowed == 1 then
      for j = 1, cost do
        redis.call('ZADD', key, now, cost == 1 and member or (member .. ':' .. j))
      end
      redis.call('PEXPIRE', key, window)
      counts[i] = counts[i] + cost
      if not oldest[i] or now < oldest[i] then oldest[i] = now end
    end
    local reset = now + window
    if oldest[i] then reset = oldest[i] + window end
    if allowed == 0 and cost > 1 and counts[i] + cost > limit then
      local need = counts[i] + cost - limit
      local nth = redis.call('ZRANGE', key, need - 1, need - 1, 'WITHSCORES')
      if nth[2] then reset = tonumber(nth[2]) + window end
    end
    out[#out + 1] = counts[i]
    out[#out + 1] = reset
  end
  a = a + 2 * w
  k = k + w
end
return out
`;

type SlidingRedis = (Redis | Cluster) & {
  slidingLogBatch(numKeys: number, ...args: Array<string | number>): Promise<number[]>;
};

/** One hitAll call, as queued for the turn's script run. */
interface Hit {
  tag: string;
  keys: string[];
  windows: readonly RateWindow[];
  nowMs: number;
  member: string;
  cost: number;
  /** Why this call's run failed when others of its turn succeeded (cluster: another node). */
  error?: unknown;
}

/** Calls per script run (Redis runs nothing else meanwhile: about 5 us per call). */
const MAX_BATCH = 100;

/**
 * A window's key: `rl:{<tag>}<suffix>`. The tag is the hash tag, so all windows of one caller share a
 * Redis Cluster slot; braces (and `%`, to stay one-to-one) are percent-encoded, so the key has
 * exactly one `{...}` and nothing a caller passes moves it to another slot.
 */
export function rateLimitKey(tag: string, suffix: string): string {
  return `rl:{${escapeBraces(tag)}}${escapeBraces(suffix)}`;
}

/**
 * The hitAll calls of one turn of the event loop go to Redis as ONE script run (SLIDING_LOG_BATCH)
 * instead of one each (TickBatcher, keyed by the call itself). On one server the run spans many
 * callers. On a Redis Cluster a script may only touch keys of one slot, so the turn's calls are run
 * per caller tag (each caller's keys share its hash tag). A failure of a run fails each of its calls, as a failed call of its own
 * would (the runner fails open).
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: SlidingRedis;
  private seq = 0;
  private readonly batcher = new TickBatcher<Hit, RateDecision[]>((hits) => this.run(hits), MAX_BATCH);
  private readonly perSlot: boolean;
  constructor(redis: Redis | Cluster) {
    redis.defineCommand('slidingLogBatch', { lua: SLIDING_LOG_BATCH });
    this.redis = redis as SlidingRedis;
    this.perSlot = redis.isCluster;
  }
  async hitAll(tag: string, windows: readonly RateWindow[], nowMs: number, cost = 1): Promise<RateDecision[]> {
    const member = `${nowMs}:${process.pid}:${this.seq++}:${Math.random().toString(36).slice(2, 8)}`;
    const hit: Hit = { tag, keys: windows.map((w) => rateLimitKey(tag, w.suffix)), windows, nowMs, member, cost: Math.max(1, Math.floor(cost)) };
    const decided = await this.batcher.get(hit);
    if (!decided) throw hit.error ?? new Error('rate-limit run gave no decision');
    return decided;
  }
  /** The turn's calls: one script run, or on a cluster one per caller tag (one slot each). */
  private async run(batch: Hit[]): Promise<Map<Hit, RateDecision[]>> {
    if (!this.perSlot) return this.runOne(batch);
    const byTag = new Map<string, Hit[]>();
    for (const h of batch) {
      const same = byTag.get(h.tag);
      if (same) same.push(h);
      else byTag.set(h.tag, [h]);
    }
    if (byTag.size === 1) return this.runOne(batch);
    const decided = new Map<Hit, RateDecision[]>();
    // Each group settles alone: a node that is down fails only the calls whose keys it holds.
    await Promise.all(
      [...byTag.values()].map((hits) =>
        this.runOne(hits).then(
          (got) => {
            for (const [h, d] of got) decided.set(h, d);
          },
          (err: unknown) => {
            for (const h of hits) h.error = err;
          },
        ),
      ),
    );
    return decided;
  }
  /** One script run for `batch` (keys of one slot on a cluster): each call's decisions, from the script's flat reply. */
  private async runOne(batch: Hit[]): Promise<Map<Hit, RateDecision[]>> {
    const keys: string[] = [];
    const args: Array<string | number> = [batch.length];
    for (const h of batch) {
      keys.push(...h.keys);
      args.push(h.nowMs, h.member, h.cost, h.windows.length);
      for (const w of h.windows) args.push(w.windowMs, w.limit);
    }
    const out = await this.redis.slidingLogBatch(keys.length, ...keys, ...args);
    const decided = new Map<Hit, RateDecision[]>();
    let o = 0;
    for (const h of batch) {
      const allowed = out[o] === 1;
      decided.set(
        h,
        h.windows.map((w, i) => {
          const count = out[o + 1 + 2 * i]!;
          return {
            allowed: allowed || count + h.cost <= w.limit,
            limit: w.limit,
            remaining: Math.max(0, w.limit - count),
            resetAtMs: out[o + 2 + 2 * i]!,
          };
        }),
      );
      o += 1 + 2 * h.windows.length;
    }
    return decided;
  }
  /** One window: the batch script's single-window case, on the same key hitAll gives its first window. */
  async hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateDecision> {
    return (await this.hitAll(key, [{ suffix: '', limit, windowMs }], nowMs))[0]!;
  }
  /**
   * Read-only (no script, nothing removed or added): per window the hits still inside it and the
   * oldest of them, in one pipeline (the keys share one slot). Expired hits left in the set are
   * not counted, as the script would drop them.
   */
  async peekAll(tag: string, windows: readonly RateWindow[], nowMs: number): Promise<RateDecision[]> {
    const pipe = this.redis.pipeline();
    for (const w of windows) {
      const key = rateLimitKey(tag, w.suffix);
      pipe.zcount(key, `(${nowMs - w.windowMs}`, '+inf');
      pipe.zrangebyscore(key, `(${nowMs - w.windowMs}`, '+inf', 'WITHSCORES', 'LIMIT', 0, 1);
    }
    const replies = (await pipe.exec()) ?? [];
    return windows.map((w, i) => {
      const [countErr, count] = replies[2 * i] ?? [new Error('no reply')];
      const [oldestErr, oldest] = replies[2 * i + 1] ?? [new Error('no reply')];
      if (countErr) throw countErr;
      if (oldestErr) throw oldestErr;
      const n = Number(count);
      const first = (oldest as string[])[1];
      return {
        allowed: n < w.limit,
        limit: w.limit,
        remaining: Math.max(0, w.limit - n),
        resetAtMs: (first === undefined ? nowMs : Number(first)) + w.windowMs,
      };
    });
  }
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly hits = new Map<string, number[]>();
  async hitAll(tag: string, windows: readonly RateWindow[], nowMs: number, cost = 1): Promise<RateDecision[]> {
    const n = Math.max(1, Math.floor(cost));
    const lists = windows.map((w) => {
      const key = `${tag}${w.suffix}`;
      const list = (this.hits.get(key) ?? []).filter((t) => t > nowMs - w.windowMs);
      this.hits.set(key, list);
      return list;
    });
    const allowed = windows.every((w, i) => lists[i]!.length + n <= w.limit);
    if (allowed) for (const list of lists) for (let j = 0; j < n; j++) list.push(nowMs);
    if (this.hits.size > 100_000) this.sweep(nowMs, Math.max(...windows.map((w) => w.windowMs)));
    return windows.map((w, i) => {
      const list = lists[i]!;
      const fits = list.length + n <= w.limit;
      // Refused: when enough hits have left the window for the whole cost to fit.
      const freeing = allowed || fits ? list[0] : list[list.length + n - w.limit - 1];
      return {
        allowed: allowed || fits,
        limit: w.limit,
        remaining: Math.max(0, w.limit - list.length),
        resetAtMs: (freeing ?? nowMs) + w.windowMs,
      };
    });
  }
  async peekAll(tag: string, windows: readonly RateWindow[], nowMs: number): Promise<RateDecision[]> {
    return windows.map((w) => {
      const list = (this.hits.get(`${tag}${w.suffix}`) ?? []).filter((t) => t > nowMs - w.windowMs);
      return { allowed: list.length < w.limit, limit: w.limit, remaining: Math.max(0, w.limit - list.length), resetAtMs: (list[0] ?? nowMs) + w.windowMs };
    });
  }
  async hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateDecision> {
    return (await this.hitAll(key, [{ suffix: '', limit, windowMs }], nowMs))[0]!;
  }
  private sweep(nowMs: number, windowMs: number): void {
    for (const [k, v] of this.hits) if ((v.at(-1) ?? 0) <= nowMs - windowMs) this.hits.delete(k);
  }
}

/** The domain's RateWindowReader over a store: a budget's windows under the same keys the runner counts in. */
export function rateWindowReader(limiter: RateLimiter): RateWindowReader {
  return { peek: (budget, callerId, nowMs) => limiter.peekAll(windowTag(budget, callerId), RATE_BUDGETS[budget].windows, nowMs) };
}
