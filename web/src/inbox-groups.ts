// Grouping of repeats in the Inbox view, without the DOM (unit-tested in test/unit/web-groups.test.ts):
// loaded rows with the same group_key (an inbound event's token and event type; any other row is a
// group of its own) collapse into one row at the place of their newest member, showing its title
// and the count; an expanded group lists its members under it. The keyboard's rows (j / k) are the
// rows shown: a collapsed group is one row; an expanded one is its row, then each member.
import type { InboxItem } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';

/** One row of the list: a notification, or a group of two or more (newest first). */
export type ListRow = { kind: 'item'; key: string; item: InboxItem } | { kind: 'group'; key: string; groupKey: string; items: InboxItem[] };

/** The key of a group's row (a notification's row is keyed by its id, a uuid: the two never meet). */
export const groupRowKey = (groupKey: string): string => `group:${groupKey}`;

/**
 * The rows of a list in its order: with `group`, items sharing a group_key become one row at the
 * place of the first (newest) of them, members in list order; a group of one stays a plain row.
 */
export function groupRows(items: readonly InboxItem[], group: boolean): ListRow[] {
  if (!group) return items.map((item) => ({ kind: 'item', key: item.notificationId, item }));
  const members = new Map<string, InboxItem[]>();
  for (const i of items) {
    const k = i.groupKey || `notification:${i.notificationId}`;
    const m = members.get(k);
    if (m) m.push(i);
    else members.set(k, [i]);
  }
  const out: ListRow[] = [];
  for (const i of items) {
    const k = i.groupKey || `notification:${i.notificationId}`;
    const m = members.get(k)!;
    if (m.length === 1) out.push({ kind: 'item', key: i.notificationId, item: i });
    else if (m[0] === i) out.push({ kind: 'group', key: groupRowKey(k), groupKey: k, items: m });
  }
  return out;
}

/** The ids a row stands for (a group: all its loaded members). */
export const idsOf = (r: ListRow): string[] => (r.kind === 'item' ? [r.item.notificationId] : r.items.map((i) => i.notificationId));

/** The rows the keyboard moves over, in order: each row's key, and after an expanded group's its members' ids. */
export function navKeys(rows: readonly ListRow[], expanded: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const r of rows) {
    out.push(r.key);
    if (r.kind === 'group' && expanded.has(r.key)) for (const i of r.items) out.push(i.notificationId);
  }
  return out;
}

/**
 * The ids each keyboard row acts on (e, h, u, x): a group's row all its members, a member or a plain
 * row itself; and for every notification id the key of the row that shows it (a member of a
 * collapsed group: the group's row).
 */
export function rowIndex(rows: readonly ListRow[], expanded: ReadonlySet<string>): { ids: Map<string, string[]>; shownAt: Map<string, string> } {
  const ids = new Map<string, string[]>();
  const shownAt = new Map<string, string>();
  for (const r of rows) {
    ids.set(r.key, idsOf(r));
    if (r.kind === 'item') shownAt.set(r.key, r.key);
    else
      for (const i of r.items) {
        const open = expanded.has(r.key);
        if (open) ids.set(i.notificationId, [i.notificationId]);
        shownAt.set(i.notificationId, open ? i.notificationId : r.key);
      }
  }
  return { ids, shownAt };
}

/** "5 items" */
export const groupCountText = (n: number): string => `${n} items`;
/** The expand button's text: "Show 5 like this" (collapsed), "Hide 5 like this" (expanded: the group's row, then all 5). */
export const moreLikeThisText = (n: number, open: boolean): string => `${open ? 'Hide' : 'Show'} ${n} like this`;
