// The inbox list's one rule for live changes, kept free of the DOM so it is unit-tested
// (test/unit/web-inbox-list.test.ts): an upsert replaces the row with the same id in place (a dedup
// repeat updates its fire count, never adds a second row), a new row goes in newest-first order,
// and a row that no longer matches the filters leaves the list.
import type { InboxItem } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';

export interface Filters {
  severity: string;
  eventType: string;
}

const created = (i: InboxItem): number => (i.createdAt ? Number(i.createdAt.seconds) * 1000 + Math.floor(i.createdAt.nanos / 1e6) : 0);

function matches(i: InboxItem, f: Filters): boolean {
  if (f.severity && i.severity !== f.severity) return false;
  if (f.eventType && i.eventType !== f.eventType) return false;
  return true;
}

/** The list with `item` applied: replaced in place when present, else inserted newest first; removed when it no longer matches. */
export function upsert(items: InboxItem[], item: InboxItem, f: Filters): InboxItem[] {
  const at = items.findIndex((x) => x.notificationId === item.notificationId);
  if (!matches(item, f)) return at < 0 ? items : items.filter((_, k) => k !== at);
  if (at >= 0) {
    const next = items.slice();
    next[at] = item;
    return next;
  }
  const t = created(item);
  const pos = items.findIndex((x) => created(x) < t);
  const next = items.slice();
  next.splice(pos < 0 ? next.length : pos, 0, item);
  return next;
}
