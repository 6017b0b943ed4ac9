// What the domain needs from infra on its hot paths, as interfaces it states itself; the
// implementations (infra/events, infra/tokens) are built once in deps.ts and reach operations as
// `ctx.ports` (the runner builds the context from AppDeps).
import type { EventStore } from './events/event-store.js';
import type { InboxFeed } from './inbox/inbox-feed.js';
import type { TokenDirectory } from './tokens/token-directory.js';
import type { BudgetName } from './rate-budgets.rules.js';

/** A budget window as it stands for one caller. */
export interface RateWindowState {
  limit: number;
  remaining: number;
  /** Unix ms when the oldest counted hit leaves the window (now + the window when it is empty). */
  resetAtMs: number;
}

/** Reads a caller's rate windows without counting a hit (GET /api/v1/tokens/self reports them). */
export interface RateWindowReader {
  /** Every window of `budget` for `callerId`, in the budget's order. Rejects when the store is unreachable. */
  peek(budget: BudgetName, callerId: string, nowMs: number): Promise<RateWindowState[]>;
}

export interface Ports {
  events: EventStore;
  tokens: TokenDirectory;
  /** Live inbox changes (WatchInbox): writers say which rows changed after their commit. */
  inboxFeed: InboxFeed;
  rateWindows: RateWindowReader;
}
