// The inbox list's rules for live changes, kept free of the DOM so they are unit-tested
// (test/unit/web-inbox-list.test.ts): an upsert replaces the row with the same id in place (a dedup
// repeat updates its fire count, never adds a second row), a row entering the list goes to its
// place (newest first, or on top when it was just listed anew: a woken snooze), and a row that no
// longer matches the view (its state) or the filters leaves the list.
import type { InboxItem, ViewCounts } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { INBOX_VIEWS, type InboxView, type ItemState, VIEW_STATES } from '../../src/domain/inbox/inbox.limits.js';

export interface Filters {
  severity: string;
  eventType: string;
}

/** The view a `?view=` value names; anything else is the Inbox. */
export function viewOf(param: string | null | undefined): InboxView {
  return (INBOX_VIEWS as readonly string[]).includes(param ?? '') ? (param as InboxView) : 'inbox';
}

const millis = (t: InboxItem['createdAt']): number => (t ? Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6) : 0);
const created = (i: InboxItem): number => millis(i.createdAt);

/** Whether a row in this state belongs in the view. */
export function inView(i: { state: string }, view: InboxView): boolean {
  return (VIEW_STATES[view] as readonly string[]).includes(i.state);
}

function matches(i: InboxItem, f: Filters, view: InboxView): boolean {
  if (!inView(i, view)) return false;
  if (f.severity && i.severity !== f.severity) return false;
  if (f.eventType && i.eventType !== f.eventType) return false;
  return true;
}

/**
 * Where a row goes: `order` keeps a present row where it is and puts an arriving one at its place by
 * creation; `top` puts it first (it was listed anew: a woken snooze).
 */
export type Placement = 'order' | 'top';

/**
 * The list with `item` applied: removed when it does not match the view or the filters; else
 * replaced in place (or moved first with `top`) when present; else inserted.
 *
 * An arriving row is inserted right after the last row created at or after it. A row's place in
 * the server's list is its listing time (its creation, or its last wake, never earlier than its
 * creation), which the item does not carry: every row above that point is certainly listed later,
 * and the rows below were created earlier (a woken one among them is placed as if it were not).
 */
export function upsert(items: InboxItem[], item: InboxItem, f: Filters, view: InboxView, place: Placement = 'order'): InboxItem[] {
  const at = items.findIndex((x) => x.notificationId === item.notificationId);
  if (!matches(item, f, view)) return at < 0 ? items : items.filter((_, k) => k !== at);
  if (at >= 0 && place === 'order') {
    const next = items.slice();
    next[at] = item;
    return next;
  }
  const next = at >= 0 ? items.filter((_, k) => k !== at) : items.slice();
  if (place === 'top') {
    next.unshift(item);
    return next;
  }
  const t = created(item);
  let pos = 0;
  for (let k = 0; k < next.length; k++) if (created(next[k]!) >= t) pos = k + 1;
  next.splice(pos, 0, item);
  return next;
}

/** What the page knew of a row before an upsert: its state, when snoozed until when, and its read mark. */
export interface KnownState {
  state: ItemState | string;
  snoozedUntil?: number | undefined;
  read?: boolean | undefined;
}

export const knownStateOf = (i: InboxItem): KnownState => ({
  state: i.state,
  snoozedUntil: i.snoozedUntil ? millis(i.snoozedUntil) : undefined,
  read: i.read,
});

/** Every view's size: rows and unread rows. */
export type Counts = Record<InboxView, { total: number; unread: number }>;

/** ListInbox's view_counts as Counts (undefined while there are none). */
export function countsOf(vc: ViewCounts | undefined): Counts | undefined {
  if (!vc) return undefined;
  const one = (c: { total: number; unread: number } | undefined) => ({ total: c?.total ?? 0, unread: c?.unread ?? 0 });
  return { inbox: one(vc.inbox), snoozed: one(vc.snoozed), done: one(vc.done), all: one(vc.all) };
}

/** The counts after one row went from `before` to `after` (the page's own action, shown before the server's counts come). */
export function shiftCounts(c: Counts, before: Pick<KnownState, 'state' | 'read'>, after: Pick<KnownState, 'state' | 'read'>): Counts {
  const out = { ...c };
  for (const v of INBOX_VIEWS) {
    const was = inView(before, v);
    const is = inView(after, v);
    out[v] = {
      total: Math.max(0, c[v].total + (is ? 1 : 0) - (was ? 1 : 0)),
      unread: Math.max(0, c[v].unread + (is && !after.read ? 1 : 0) - (was && !before.read ? 1 : 0)),
    };
  }
  return out;
}

/** How far the browser's clock may be from the server's when telling a wake from a move. */
const CLOCK_SLACK_MS = 60_000;
/** A row updated within this long of its creation is a new notification. */
const FRESH_MS = 10_000;

/**
 * Where an upsert of a row goes, from what was known of it (`before`: the page records its own
 * changes there before it sends them, so its own moves are never taken for wakes) and now;
 * `recheck` when the place cannot be told (a row not seen before that is not new: re-list to get the
 * server's order).
 *
 * A wake brings a snoozed row back to the Inbox unread and listed anew (on top); "Move to Inbox"
 * (another tab's, an agent's) keeps its read state and its old place. So: snoozed -> inbox, unread,
 * at or after its snooze time = a wake.
 */
export function placeOf(before: KnownState | undefined, item: InboxItem, now: number): { place: Placement; recheck: boolean } {
  if (item.state !== 'inbox') return { place: 'order', recheck: false };
  if (before) {
    const due = before.snoozedUntil === undefined || before.snoozedUntil <= now + CLOCK_SLACK_MS;
    return { place: before.state === 'snoozed' && !item.read && due ? 'top' : 'order', recheck: false };
  }
  // Not seen before (snoozed in an earlier visit, or beyond the loaded pages): a new row goes first
  // by its creation anyway; an older unread one is most likely a wake, a read one a move.
  if (isFresh(item)) return { place: 'order', recheck: false };
  return { place: item.read ? 'order' : 'top', recheck: true };
}

function isFresh(item: InboxItem): boolean {
  return millis(item.updatedAt) - created(item) < FRESH_MS;
}
