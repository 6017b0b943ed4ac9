// The inbox feed across processes (REDIS_URL): Redis pub/sub on ONE channel, the user id in each
// line, and each process fans out to its own watchers by user id (fanout.ts). A turn's changes leave
// as one PUBLISH, at most one per FLUSH_INTERVAL_MS; a failed one is counted and dropped (the writes
// it reports on have committed). One subscriber connection per process while it has watchers.
// Line: `<userId> <kind><ids>`: kind `n` (notification ids) or `d` (delivery ids), ids comma-separated;
// or `<userId> a`: the user's credentials changed (InboxChanges.access).
import { Cluster } from 'ioredis';
import type { InboxChanges, InboxFeed, InboxSubscription } from '../../domain/inbox/inbox-feed.js';
import type { RedisClient } from '../redis-client.js';
import { LocalFanout } from './fanout.js';

export const INBOX_FEED_CHANNEL = 'fluxdesk:inbox-feed';
/** Ids per line (a mark-all-read of thousands is split; ~7.4 KB each). */
const IDS_PER_LINE = 200;
/** Lines per PUBLISH (a busy turn is split: no message of megabytes). */
const LINES_PER_MESSAGE = 500;
/**
 * At most one PUBLISH per this many ms. What a PUBLISH costs the service is its loopback write: it
 * wakes Redis, and the service waits in the syscall while Redis runs (one PUBLISH per change cost
 * 11-14 us of CPU per published event; one per turn, 1.8-2.5 us at 50 events per turn). After a
 * quiet spell a change leaves at the end of its turn; under load it waits for the interval (up to
 * 50 ms, next to the 1 s the stream promises).
 */
export const FLUSH_INTERVAL_MS = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The lines of one user's changes. */
export function encodeChanges(userId: string, changes: InboxChanges): string[] {
  const out: string[] = [];
  const add = (kind: string, ids: readonly string[] | undefined) => {
    if (!ids) return;
    for (let i = 0; i < ids.length; i += IDS_PER_LINE) out.push(`${userId} ${kind}${ids.slice(i, i + IDS_PER_LINE).join(',')}`);
  };
  add('n', changes.notificationIds);
  add('d', changes.deliveryIds);
  if (changes.access) out.push(`${userId} a`);
  return out;
}

/** One line's user and changes; undefined for anything this code did not write. */
export function decodeLine(line: string): { userId: string; changes: InboxChanges } | undefined {
  const userId = line.slice(0, 36);
  const kind = line[37];
  if (line[36] !== ' ' || !UUID.test(userId)) return undefined;
  if (kind === 'a') return line.length === 38 ? { userId, changes: { access: true } } : undefined;
  if (kind !== 'n' && kind !== 'd') return undefined;
  const ids = line
    .slice(38)
    .split(',')
    .filter((id) => UUID.test(id));
  if (ids.length === 0) return undefined;
  return { userId, changes: kind === 'n' ? { notificationIds: ids } : { deliveryIds: ids } };
}

export interface RedisInboxFeedOptions {
  /** A publish or a subscribe that failed (Redis away); called at most once per second. */
  onError?: (err: Error, what: 'publish' | 'subscribe') => void;
  /** Least time between two PUBLISHes (default FLUSH_INTERVAL_MS). */
  flushIntervalMs?: number;
  /** REDIS_KEY_PREFIX: installations sharing one Redis each get a channel of their own. */
  keyPrefix?: string;
}

export class RedisInboxFeed implements InboxFeed {
  private readonly fanout = new LocalFanout();
  private subscriber: RedisClient | undefined;
  /** The channel's SUBSCRIBE while this process has watchers, resolved once Redis confirmed it. */
  private subscribed: Promise<void> | undefined;
  /** Redis confirmed `subscribed` (until then, further watchers wait for the same SUBSCRIBE). */
  private confirmed = false;
  /** Lines of this turn, sent by the next flush. */
  private outbox: string[] = [];
  private flushScheduled = false;
  /** A flush waiting for the interval to pass (cleared by close()). */
  private flushTimer: NodeJS.Timeout | undefined;
  /** When the last PUBLISH went out (performance.now(); none yet: the first change goes out at once). */
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private readonly flushIntervalMs: number;
  private lastErrorAt = 0;
  /** PUBLISHes sent (each one write to Redis). */
  publishes = 0;
  /** Messages whose PUBLISH failed (their changes were dropped). */
  publishFailures = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly opts: RedisInboxFeedOptions = {},
  ) {
    this.flushIntervalMs = opts.flushIntervalMs ?? FLUSH_INTERVAL_MS;
    this.channel = `${opts.keyPrefix ?? ''}${INBOX_FEED_CHANNEL}`;
  }
  /** INBOX_FEED_CHANNEL behind REDIS_KEY_PREFIX (channels are not keys: the client's prefix does not reach them). */
  private readonly channel: string;

  changed(userId: string, changes: InboxChanges): void {
    const d = changes.deliveryIds;
    // The publish path's one delivery: one line, built without the general encoder.
    if (d?.length === 1 && changes.notificationIds === undefined) this.outbox.push(`${userId} d${d[0]}`);
    else for (const line of encodeChanges(userId, changes)) this.outbox.push(line);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // The rest of this turn's changes join it; within the interval of the last PUBLISH, so do the
    // changes until the interval has passed.
    const wait = this.lastFlushAt + this.flushIntervalMs - performance.now();
    if (wait <= 0) setImmediate(this.flush);
    else this.flushTimer = setTimeout(this.flush, wait);
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    this.flushTimer = undefined;
    this.lastFlushAt = performance.now();
    const lines = this.outbox;
    this.outbox = [];
    for (let i = 0; i < lines.length; i += LINES_PER_MESSAGE) {
      const message = lines.length <= LINES_PER_MESSAGE ? lines.join('\n') : lines.slice(i, i + LINES_PER_MESSAGE).join('\n');
      this.publishes++;
      this.redis.publish(this.channel, message).catch(this.publishFailed);
    }
  };

  private readonly publishFailed = (err: Error): void => {
    this.publishFailures++;
    this.report(err, 'publish');
  };

  private report(err: Error, what: 'publish' | 'subscribe'): void {
    const now = Date.now();
    if (now - this.lastErrorAt < 1000) return;
    this.lastErrorAt = now;
    this.opts.onError?.(err, what);
  }

  subscribe(userId: string): InboxSubscription {
    return this.fanout.add(
      userId,
      () => this.channelSubscribed(),
      () => {
        if (this.fanout.users > 0) return;
        this.subscribed = undefined;
        this.confirmed = false;
        this.subscriber?.unsubscribe(this.channel).catch(() => {});
      },
    );
  }

  /** The channel subscribed (once while this process has watchers; tried again after a failure). */
  private channelSubscribed(): Promise<void> {
    const p = this.subscribed;
    // Subscribed already, but the connection is down: changes would be lost until it is back. (A
    // SUBSCRIBE still on its way is waited for: watchers that open together all get it.)
    if (p && this.confirmed && this.subscriber?.status !== 'ready') {
      return Promise.reject(new Error(`inbox feed subscriber ${this.subscriber?.status ?? 'absent'}`));
    }
    if (p) return p;
    const attempt = this.connection()
      .subscribe(this.channel)
      .then(() => {
        if (this.subscribed === attempt) this.confirmed = true;
      });
    this.subscribed = attempt;
    this.confirmed = false;
    attempt.catch((err: Error) => {
      if (this.subscribed === attempt) this.subscribed = undefined;
      this.report(err, 'subscribe');
    });
    return attempt;
  }

  /**
   * The subscriber connection (a connection in subscriber mode carries nothing else). Unlike the
   * command connection it queues commands while (re)connecting: a SUBSCRIBE issued meanwhile goes
   * out once connected, or fails after the client's one retry (maxRetriesPerRequest). ioredis
   * re-subscribes after a reconnect by itself; changes published while it was down are lost
   * (domain/inbox/inbox-feed.ts: best effort, at most once).
   */
  private connection(): RedisClient {
    if (this.subscriber) return this.subscriber;
    const r = this.redis;
    const sub: RedisClient =
      r instanceof Cluster
        ? r.duplicate(undefined, { enableOfflineQueue: true, lazyConnect: false })
        : r.duplicate({ enableOfflineQueue: true, lazyConnect: false });
    sub.on('error', (err: Error) => this.report(err, 'subscribe'));
    sub.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      for (const line of message.split('\n')) {
        // Most lines are for users this process does not watch: decided before anything is parsed.
        if (!this.fanout.has(line.slice(0, 36))) continue;
        const decoded = decodeLine(line);
        if (decoded) this.fanout.deliver(decoded.userId, decoded.changes);
      }
    });
    this.subscriber = sub;
    return sub;
  }

  /** Watchers end; the subscriber connection closes (the command connection is the caller's). */
  close(): void {
    // Changes still waiting for the interval go out now (the command connection is still open).
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flush();
    }
    this.fanout.closeAll();
    this.subscriber?.disconnect();
    this.subscriber = undefined;
  }
}
