// The inbox list's live-change rule (web/src/inbox-list.ts): an upsert from WatchInbox replaces its
// row in place (a dedup repeat updates the fire count, no second row), a new notification goes in
// newest-first order, and filters decide whether a row is (still) shown.
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { type InboxItem, InboxItemSchema } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { upsert } from '../../web/src/inbox-list.ts';

const ALL = { severity: '', eventType: '' };
const at = (minute: number) => timestampFromDate(new Date(Date.UTC(2026, 10, 25, 12, minute)));
const item = (id: string, minute: number, over: MessageInitShape<typeof InboxItemSchema> = {}): InboxItem =>
  create(InboxItemSchema, {
    notificationId: id,
    title: `T ${id}`,
    createdAt: at(minute),
    fireCount: 1,
    severity: 'info',
    eventType: 'ci.build.failed',
    ...over,
  });
const ids = (items: InboxItem[]) => items.map((i) => i.notificationId);

describe('upsert', () => {
  const list = [item('c', 30), item('b', 20), item('a', 10)];

  it('replaces a row in place: a repeat updates the fire count, no second row, the order unchanged', () => {
    const repeat = item('b', 20, { fireCount: 2, title: 'T b (again)' });
    const next = upsert(list, repeat, ALL);
    expect(ids(next)).toEqual(['c', 'b', 'a']);
    expect(next[1]!.fireCount).toBe(2);
    expect(next[1]!.title).toBe('T b (again)');
    expect(list[1]!.fireCount).toBe(1); // the input is not changed
  });

  it('inserts a new row newest first, in order of creation', () => {
    expect(ids(upsert(list, item('d', 40), ALL))).toEqual(['d', 'c', 'b', 'a']);
    expect(ids(upsert(list, item('m', 25), ALL))).toEqual(['c', 'm', 'b', 'a']);
    expect(ids(upsert(list, item('z', 5), ALL))).toEqual(['c', 'b', 'a', 'z']);
    expect(ids(upsert([], item('x', 1), ALL))).toEqual(['x']);
  });

  it('applies the filters: a non-matching new row is not shown, a row that stops matching leaves', () => {
    const crit = { severity: 'critical', eventType: '' };
    const critical = [item('c', 30, { severity: 'critical' })];
    expect(ids(upsert(critical, item('n', 40, { severity: 'info' }), crit))).toEqual(['c']);
    expect(ids(upsert(critical, item('n', 40, { severity: 'critical' }), crit))).toEqual(['n', 'c']);
    expect(ids(upsert(critical, item('c', 30, { severity: 'warn' }), crit))).toEqual([]);
    const byType = { severity: '', eventType: 'deploy.done' };
    expect(ids(upsert([], item('t', 1, { eventType: 'deploy.done' }), byType))).toEqual(['t']);
    expect(ids(upsert([], item('u', 1), byType))).toEqual([]);
  });
});
