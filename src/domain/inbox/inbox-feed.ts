// The live feed of inbox changes (InboxService.WatchInbox, wait_for_inbox): writers say after their
// commit which of a user's rows changed; watchers read those rows afresh (ids only, never content).
// Best effort, at most once (a client that reconnects lists again); a write never waits for it.
// Implemented in infra/inbox-feed/ (Redis pub/sub, or in process when embedded).

/** Inbox rows of one user that changed, by notification id or by the delivery id an event's row carries. */
export interface InboxChanges {
  notificationIds?: readonly string[];
  deliveryIds?: readonly string[];
  /**
   * The user's credentials changed: a web session ended (sign-out, sign-out everywhere), an agent
   * token was revoked, the user was offboarded. Open streams check theirs again at once and end
   * when they are no longer valid, instead of at their next heartbeat.
   */
  access?: true;
}

/** What one wake-up of a subscription hands over: every id changed since the previous one, each once. */
export interface InboxChangeBatch {
  notificationIds: string[];
  deliveryIds: string[];
  /** Some change since the previous wake-up said `access` (see InboxChanges). */
  access: boolean;
}

export interface InboxSubscription extends AsyncIterable<InboxChangeBatch> {
  /** Resolves once changes committed from now on are sure to arrive; rejects when the feed cannot subscribe (Redis away). */
  readonly ready: Promise<void>;
  /** Stops the subscription: a pending iteration ends (done). Idempotent. */
  close(): void;
}

export interface SubscribeOptions {
  closeAfterMs?: number;
}

export interface InboxFeed {
  /** After the commit that changed them: fire and forget (returns at once, never throws). */
  changed(userId: string, changes: InboxChanges): void;
  /**
   * The changes of one user's inbox from now on. `closeAfterMs`: the subscription closes itself
   * after that long (a wait with a deadline: its iteration then ends).
   */
  subscribe(userId: string, options?: SubscribeOptions): InboxSubscription;
}
