// In-process fan-out of inbox changes to the subscriptions of this process, by user id: both feeds
// (memory-inbox-feed.ts, redis-inbox-feed.ts) hand every change they learn of to deliver().
import type { InboxChangeBatch, InboxChanges, InboxSubscription, SubscribeOptions } from '../../domain/inbox/inbox-feed.js';

/**
 * Distinct ids a subscription holds for a watcher that does not read. Past it, further ids are
 * dropped (counted in `dropped`): a stuck client must not grow the process without bound, and a
 * client that far behind lists its inbox again anyway.
 */
export const MAX_PENDING_IDS = 10_000;

export class QueuedSubscription implements InboxSubscription {
  readonly ready: Promise<void>;
  private notificationIds = new Set<string>();
  private deliveryIds = new Set<string>();
  private access = false;
  private wake: (() => void) | undefined;
  private closed = false;
  private deadline: NodeJS.Timeout | undefined;
  dropped = 0;

  constructor(
    readonly userId: string,
    ready: Promise<void>,
    private readonly onClose: (s: QueuedSubscription) => void,
    closeAfterMs?: number,
  ) {
    this.ready = ready;
    // Nobody may await `ready` (a caller that closed first): never an unhandled rejection.
    ready.catch(() => {});
    if (closeAfterMs !== undefined) {
      this.deadline = setTimeout(() => this.close(), closeAfterMs);
      this.deadline.unref();
    }
  }

  push(changes: InboxChanges): void {
    if (this.closed) return;
    for (const id of changes.notificationIds ?? []) this.add(this.notificationIds, id);
    for (const id of changes.deliveryIds ?? []) this.add(this.deliveryIds, id);
    if (changes.access) this.access = true;
    this.wake?.();
  }

  private add(set: Set<string>, id: string): void {
    if (this.notificationIds.size + this.deliveryIds.size >= MAX_PENDING_IDS && !set.has(id)) this.dropped++;
    else set.add(id);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.deadline);
    this.onClose(this);
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<InboxChangeBatch> {
    while (!this.closed) {
      if (this.notificationIds.size === 0 && this.deliveryIds.size === 0 && !this.access) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
        continue;
      }
      const batch: InboxChangeBatch = { notificationIds: [...this.notificationIds], deliveryIds: [...this.deliveryIds], access: this.access };
      this.notificationIds = new Set();
      this.deliveryIds = new Set();
      this.access = false;
      yield batch;
    }
  }
}

/** The subscriptions of this process by user id. */
export class LocalFanout {
  private readonly byUser = new Map<string, Set<QueuedSubscription>>();

  /** A new subscription; `first` is true when it is the user's only one in this process. */
  add(userId: string, ready: (first: boolean) => Promise<void>, onLast: (userId: string) => void, options: SubscribeOptions = {}): QueuedSubscription {
    let subs = this.byUser.get(userId);
    const first = subs === undefined;
    if (!subs) this.byUser.set(userId, (subs = new Set()));
    const sub = new QueuedSubscription(
      userId,
      ready(first),
      (s) => {
        const set = this.byUser.get(s.userId);
        if (!set?.delete(s) || set.size > 0) return;
        this.byUser.delete(s.userId);
        onLast(s.userId);
      },
      options.closeAfterMs,
    );
    subs.add(sub);
    return sub;
  }

  has(userId: string): boolean {
    return this.byUser.has(userId);
  }

  deliver(userId: string, changes: InboxChanges): void {
    const subs = this.byUser.get(userId);
    if (subs) for (const s of subs) s.push(changes);
  }

  /** Every subscription ends (the feed is closing). */
  closeAll(): void {
    for (const subs of [...this.byUser.values()]) for (const s of [...subs]) s.close();
  }

  get users(): number {
    return this.byUser.size;
  }
}
