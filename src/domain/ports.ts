// What the domain needs from infra on its hot paths, as interfaces it states itself; the
// implementations (infra/events, infra/tokens) are built once in deps.ts and reach operations as
// `ctx.ports` (the runner builds the context from AppDeps).
import type { EventStore } from './events/event-store.js';
import type { InboxFeed } from './inbox/inbox-feed.js';
import type { TokenDirectory } from './tokens/token-directory.js';

export interface Ports {
  events: EventStore;
  tokens: TokenDirectory;
  /** Live inbox changes (WatchInbox): writers say which rows changed after their commit. */
  inboxFeed: InboxFeed;
}
