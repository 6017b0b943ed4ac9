// One WatchInbox stream for the whole app: pages subscribe to its messages. The stream reconnects
// with capped exponential backoff (1 s, 2 s, 4 s ... 30 s, with jitter); every `ready` (the first
// one and each after a reconnect) tells subscribers to re-list, so nothing committed while the
// stream was down (or before it was in place) is missed.
import type { InboxItem } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { inbox, isUnauthenticated, redirectToLogin } from './client.js';

export type LiveEvent =
  | { kind: 'ready'; unreadCount: number }
  | { kind: 'upsert'; item: InboxItem; unreadCount: number }
  | { kind: 'heartbeat'; unreadCount: number };
export type LiveState = 'connecting' | 'live' | 'reconnecting';

type Listener = (e: LiveEvent) => void;
type StateListener = (s: LiveState) => void;

const listeners = new Set<Listener>();
const stateListeners = new Set<StateListener>();
let state: LiveState = 'connecting';
let started = false;

function setState(s: LiveState): void {
  state = s;
  for (const l of stateListeners) l(s);
}

export function subscribe(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function onLiveState(l: StateListener): () => void {
  stateListeners.add(l);
  l(state);
  return () => stateListeners.delete(l);
}

const emit = (e: LiveEvent) => {
  for (const l of [...listeners]) l(e);
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Starts the stream once; it runs for the life of the page. */
export function startLive(): void {
  if (started) return;
  started = true;
  void (async () => {
    let failures = 0;
    for (;;) {
      try {
        for await (const msg of inbox.watchInbox({})) {
          const c = msg.change;
          if (c.case === 'ready') {
            failures = 0;
            setState('live');
            emit({ kind: 'ready', unreadCount: msg.unreadCount });
          } else if (c.case === 'upsert') emit({ kind: 'upsert', item: c.value, unreadCount: msg.unreadCount });
          else if (c.case === 'heartbeat') emit({ kind: 'heartbeat', unreadCount: msg.unreadCount });
        }
      } catch (e) {
        if (isUnauthenticated(e)) {
          redirectToLogin();
          return;
        }
      }
      // The stream ended (server drain, network): back off, then subscribe again.
      setState('reconnecting');
      const delay = Math.min(30_000, 1000 * 2 ** Math.min(failures, 5));
      failures++;
      await sleep(delay / 2 + Math.random() * (delay / 2));
    }
  })();
}
