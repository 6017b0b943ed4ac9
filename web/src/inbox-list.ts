// The inbox list's rules for live changes, kept free of the DOM so they are unit-tested
// (test/unit/web-inbox-list.test.ts): an upsert replaces the row with the same id (a dedup repeat
// updates its fire count, never adds a second row), a row goes to its exact place in the server's
// order (listed_at newest first, then id: a woken snooze is listed anew, so on top), and a row that
// no longer matches the view (its state) or the filters leaves the list.
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
 * The server's list order (ListInbox: `coalesce(listed_at, created_at) desc, id desc`): negative
 * when `a` is listed above `b`. listed_at is the creation, or the return from a snooze.
 */
export function listOrder(a: InboxItem, b: InboxItem): number {
  const ta = a.listedAt ?? a.createdAt;
  const tb = b.listedAt ?? b.createdAt;
  const sa = ta?.seconds ?? 0n;
  const sb = tb?.seconds ?? 0n;
  if (sa !== sb) return sa > sb ? -1 : 1;
  const na = ta?.nanos ?? 0;
  const nb = tb?.nanos ?? 0;
  if (na !== nb) return nb - na;
  return a.notificationId === b.notificationId ? 0 : a.notificationId > b.notificationId ? -1 : 1;
}

/**
 * The list with `item` applied: removed when it does not match the view or the filters; else put
 * at its place in the server's order (a present row whose place did not change stays where it is).
 * `more`: the list is the first pages of a longer one; a row not in it that goes below its last row
 * belongs to a page not loaded yet and is not added ("Load more" brings it). `insert` false: a row
 * not in the list is never added (a search's list: only the server knows whether a row matches the
 * query, so the page re-lists instead); a row in it is still updated, or removed when it left the view.
 */
export function upsert(items: InboxItem[], item: InboxItem, f: Filters, view: InboxView, more = false, insert = true): InboxItem[] {
  const at = items.findIndex((x) => x.notificationId === item.notificationId);
  if (!matches(item, f, view)) return at < 0 ? items : items.filter((_, k) => k !== at);
  if (at < 0 && !insert) return items;
  const next = at >= 0 ? items.filter((_, k) => k !== at) : items.slice();
  let pos = next.findIndex((x) => listOrder(item, x) < 0);
  if (pos < 0) {
    if (more && at < 0) return items;
    pos = next.length;
  }
  next.splice(pos, 0, item);
  return next;
}

/** What the page knew of a row: its state and its read mark (its counts move by them). */
export interface KnownState {
  state: ItemState | string;
  read?: boolean | undefined;
}

export const knownStateOf = (i: InboxItem): KnownState => ({ state: i.state, read: i.read });

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
