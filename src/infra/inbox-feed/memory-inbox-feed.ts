// The inbox feed of the embedded mode (no REDIS_URL): one process serves every request, so a change
// goes straight to this process's subscriptions.
import type { InboxChanges, InboxFeed, InboxSubscription, SubscribeOptions } from '../../domain/inbox/inbox-feed.js';
import { LocalFanout } from './fanout.js';

export class MemoryInboxFeed implements InboxFeed {
  private readonly fanout = new LocalFanout();

  changed(userId: string, changes: InboxChanges): void {
    this.fanout.deliver(userId, changes);
  }

  subscribe(userId: string, options?: SubscribeOptions): InboxSubscription {
    return this.fanout.add(
      userId,
      () => Promise.resolve(),
      () => {},
      options,
    );
  }

  close(): void {
    this.fanout.closeAll();
  }
}
