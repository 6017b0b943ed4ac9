// Grouping of repeats in the inbox list (web/src/inbox-groups.ts): rows with the same group_key
// collapse into one row at the place of the newest, members in list order; groups of one stay plain
// rows; the keyboard's rows (a collapsed group is one, an expanded one is its row then its members);
// which ids each keyboard row acts on; and the "Mark all done" texts (web/src/triage.ts). The
// "Group repeats" choice is the user's preference group_inbox (test/integration/nudges/inbox-grouping.test.ts).
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { type InboxItem, InboxItemSchema } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { groupCountText, groupRowKey, groupRows, idsOf, type ListRow, moreLikeThisText, navKeys, rowIndex } from '../../web/src/inbox-groups.ts';
import { markAllDoneText, markAllProgressText } from '../../web/src/triage.ts';

const at = (minute: number) => timestampFromDate(new Date(Date.UTC(2026, 10, 25, 12, minute)));
const item = (id: string, minute: number, groupKey: string, over: MessageInitShape<typeof InboxItemSchema> = {}): InboxItem =>
  create(InboxItemSchema, { notificationId: id, title: `T ${id}`, createdAt: at(minute), groupKey, state: 'inbox', ...over });
/** A row as text: an id, or "group-key[ids]". */
const shape = (rows: ListRow[]) => rows.map((r) => (r.kind === 'item' ? r.item.notificationId : `${r.groupKey}[${idsOf(r).join(',')}]`));

// Newest first: two CI failures around a deploy, a third failure, a one-off notification.
const list = [
  item('f3', 50, 'tok:ci.failed'),
  item('d1', 40, 'tok:deploy.done'),
  item('f2', 30, 'tok:ci.failed'),
  item('n1', 20, 'notification:n1'),
  item('f1', 10, 'tok:ci.failed'),
];

describe('groupRows', () => {
  it('rows with the same group_key become one row at the newest one, members newest first; others stay rows in order', () => {
    const rows = groupRows(list, true);
    expect(shape(rows)).toEqual(['tok:ci.failed[f3,f2,f1]', 'd1', 'n1']);
    const g = rows[0]!;
    expect(g.kind === 'group' && g.items[0]!.title).toBe('T f3');
    expect(g.key).toBe(groupRowKey('tok:ci.failed'));
    expect(rows[1]!.key).toBe('d1');
  });

  it('grouping off, or every key different: one row per item, in order', () => {
    expect(shape(groupRows(list, false))).toEqual(['f3', 'd1', 'f2', 'n1', 'f1']);
    expect(shape(groupRows([item('a', 2, 'k:a'), item('b', 1, 'k:b')], true))).toEqual(['a', 'b']);
    expect(groupRows([], true)).toEqual([]);
  });

  it('a group of one is a plain row; a missing group_key is a group of its own', () => {
    expect(shape(groupRows([item('a', 2, 'tok:x'), item('b', 1, 'tok:y')], true))).toEqual(['a', 'b']);
    expect(shape(groupRows([item('a', 2, ''), item('b', 1, '')], true))).toEqual(['a', 'b']);
  });

  it('a new member on top moves the group to its place; the last but one leaving makes it a plain row', () => {
    const newer = [item('f4', 60, 'tok:ci.failed'), ...list];
    expect(shape(groupRows(newer, true))).toEqual(['tok:ci.failed[f4,f3,f2,f1]', 'd1', 'n1']);
    const fewer = list.filter((i) => i.notificationId !== 'f3' && i.notificationId !== 'f2');
    expect(shape(groupRows(fewer, true))).toEqual(['d1', 'n1', 'f1']);
  });

  it('500 rows of one group, and 500 different ones, quickly (the budget list)', () => {
    const same = Array.from({ length: 500 }, (_, k) => item(`s${k}`, 500 - k, 'tok:same'));
    const different = Array.from({ length: 500 }, (_, k) => item(`d${k}`, 500 - k, `tok:t${k}`));
    const t0 = performance.now();
    for (let r = 0; r < 20; r++) {
      expect(groupRows(same, true)).toHaveLength(1);
      expect(groupRows(different, true)).toHaveLength(500);
    }
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe('keyboard rows', () => {
  const rows = groupRows(list, true);
  const g = groupRowKey('tok:ci.failed');

  it('a collapsed group is one row; an expanded one is its row, then each member', () => {
    expect(navKeys(rows, new Set())).toEqual([g, 'd1', 'n1']);
    expect(navKeys(rows, new Set([g]))).toEqual([g, 'f3', 'f2', 'f1', 'd1', 'n1']);
  });

  it('the group row acts on all its members, a member on itself; a collapsed member is shown by its group row', () => {
    const closed = rowIndex(rows, new Set());
    expect(closed.ids.get(g)).toEqual(['f3', 'f2', 'f1']);
    expect(closed.ids.get('d1')).toEqual(['d1']);
    expect(closed.ids.has('f2')).toBe(false);
    expect(closed.shownAt.get('f2')).toBe(g);
    expect(closed.shownAt.get('d1')).toBe('d1');
    const open = rowIndex(rows, new Set([g]));
    expect(open.ids.get(g)).toEqual(['f3', 'f2', 'f1']);
    expect(open.ids.get('f2')).toEqual(['f2']);
    expect(open.shownAt.get('f2')).toBe('f2');
  });

  it('texts: the count and the expand button', () => {
    expect(groupCountText(5)).toBe('5 items');
    expect(moreLikeThisText(5, false)).toBe('Show 5 like this');
    expect(moreLikeThisText(5, true)).toBe('Hide 5 like this');
  });
});

describe('"Mark all done" texts', () => {
  it('progress and the final toast with the count (thousands separated) and no Undo', () => {
    expect(markAllProgressText(1000)).toBe('Marked 1,000 done…');
    expect(markAllDoneText(1234)).toBe('Marked 1,234 done (no Undo for Mark all done)');
    expect(markAllDoneText(1)).toBe('Marked 1 done (no Undo for Mark all done)');
    expect(markAllDoneText(0)).toBe('Nothing to mark done');
  });
});
