// The inbox feed across processes (REDIS_URL): Redis pub/sub, one channel per user
// (`inbox-feed:<userId>`), so a process receives only the changes of users it has watchers for and
// a publish for a user nobody watches costs Redis one dictionary lookup.
//  - Publishing: one PUBLISH per change on the shared command connection, never awaited (ioredis
//    auto-pipelining sends the publishes of one event-loop turn in one write). A failure (Redis
//    away: the connection has no offline queue) is counted and dropped: the write it reports on
//    has committed and is answered as usual.
//  - Subscribing: ONE subscriber connection per process (made on the first watcher), subscribed
//    to a user's channel while this process has at least one watcher of that user; every message
//    is fanned out in process (fanout.ts). ioredis re-subscribes after a reconnect by itself;
//    changes published while the connection was down are lost (see domain/inbox/inbox-feed.ts).
// Message: a kind letter (`n` notification ids, `d` delivery ids) then comma-separated ids.
import { Cluster } from 'ioredis';
import type { InboxChanges, InboxFeed, InboxSubscription } from '../../domain/inbox/inbox-feed.js';
import type { RedisClient } from '../redis-client.js';
import { LocalFanout } from './fanout.js';

const CHANNEL_PREFIX = 'inbox-feed:';
/** Ids per message (a mark-all-read of thousands is split; ~7.4 KB each). */
const IDS_PER_MESSAGE = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const channelOf = (userId: string): string => `${CHANNEL_PREFIX}${userId}`;

export function encodeChanges(changes: InboxChanges): string[] {
  const out: string[] = [];
  const add = (kind: string, ids: readonly string[] | undefined) => {
    if (!ids) return;
    for (let i = 0; i < ids.length; i += IDS_PER_MESSAGE) out.push(kind + ids.slice(i, i + IDS_PER_MESSAGE).join(','));
  };
  add('n', changes.notificationIds);
  add('d', changes.deliveryIds);
  return out;
}

/** The changes of one message; undefined for anything this code did not write. */
export function decodeChanges(message: string): InboxChanges | undefined {
  const kind = message[0];
  if (kind !== 'n' && kind !== 'd') return undefined;
  const ids = message
    .slice(1)
    .split(',')
    .filter((id) => UUID.test(id));
  if (ids.length === 0) return undefined;
  return kind === 'n' ? { notificationIds: ids } : { deliveryIds: ids };
}

export interface RedisInboxFeedOptions {
  /** A publish or a subscribe that failed (Redis away); called at most once per second. */
  onError?: (err: Error, what: 'publish' | 'subscribe') => void;
}

export class RedisInboxFeed implements InboxFeed {
  private readonly fanout = new LocalFanout();
  private subscriber: RedisClient | undefined;
  /** Per watched user: its channel's SUBSCRIBE, resolved once Redis confirmed it. */
  private readonly subscribed = new Map<string, Promise<void>>();
  private lastErrorAt = 0;
  /** Publishes that failed (their change was dropped). */
  publishFailures = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly opts: RedisInboxFeedOptions = {},
  ) {}

  changed(userId: string, changes: InboxChanges): void {
    const channel = channelOf(userId);
    const d = changes.deliveryIds;
    // The publish path's one delivery: one message, built without the general encoder.
    if (d?.length === 1 && changes.notificationIds === undefined) this.redis.publish(channel, `d${d[0]}`).catch(this.publishFailed);
    else for (const message of encodeChanges(changes)) this.redis.publish(channel, message).catch(this.publishFailed);
  }

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
      () => this.channelSubscribed(userId),
      (last) => {
        this.subscribed.delete(last);
        this.subscriber?.unsubscribe(channelOf(last)).catch(() => {});
      },
    );
  }

  /** The user's channel subscribed (once per user while watched; tried again after a failure). */
  private channelSubscribed(userId: string): Promise<void> {
    let p = this.subscribed.get(userId);
    // Subscribed already, but the connection is down: changes would be lost until it is back.
    if (p && this.subscriber?.status !== 'ready') return Promise.reject(new Error(`inbox feed subscriber ${this.subscriber?.status ?? 'absent'}`));
    if (p) return p;
    p = this.connection()
      .subscribe(channelOf(userId))
      .then(() => undefined);
    this.subscribed.set(userId, p);
    const attempt = p;
    p.catch((err: Error) => {
      if (this.subscribed.get(userId) === attempt) this.subscribed.delete(userId);
      this.report(err, 'subscribe');
    });
    return p;
  }

  /**
   * The subscriber connection (a connection in subscriber mode carries nothing else). Unlike the
   * command connection it queues commands while (re)connecting: a SUBSCRIBE issued meanwhile goes
   * out once connected, or fails after the client's one retry (maxRetriesPerRequest).
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
      if (!channel.startsWith(CHANNEL_PREFIX)) return;
      const changes = decodeChanges(message);
      if (changes) this.fanout.deliver(channel.slice(CHANNEL_PREFIX.length), changes);
    });
    this.subscriber = sub;
    return sub;
  }

  /** Watchers end; the subscriber connection closes (the command connection is the caller's). */
  close(): void {
    this.fanout.closeAll();
    this.subscriber?.disconnect();
    this.subscriber = undefined;
  }
}
