// The inbox list's live-change rules (web/src/inbox-list.ts): an upsert from WatchInbox replaces its
// row in place (a dedup repeat updates the fire count, no second row), a new notification goes in
// its place by listed_at then id (a woken snooze on top), and the view (the row's state) and the filters
// decide whether a row is (still) shown; under a search no new row is inserted (the page re-lists).
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { type InboxItem, InboxItemSchema, ListInboxResponseSchema } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { countsOf, listOrder, shiftCounts, upsert, viewOf } from '../../web/src/inbox-list.ts';

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
    state: 'inbox',
    ...over,
  });
const ids = (items: InboxItem[]) => items.map((i) => i.notificationId);

describe('upsert', () => {
  const list = [item('c', 30), item('b', 20), item('a', 10)];

  it('replaces a row in place: a repeat updates the fire count, no second row, the order unchanged', () => {
    const repeat = item('b', 20, { fireCount: 2, title: 'T b (again)' });
    const next = upsert(list, repeat, ALL, 'inbox');
    expect(ids(next)).toEqual(['c', 'b', 'a']);
    expect(next[1]!.fireCount).toBe(2);
    expect(next[1]!.title).toBe('T b (again)');
    expect(list[1]!.fireCount).toBe(1); // the input is not changed
  });

  it('inserts a new row newest first, in order of creation', () => {
    expect(ids(upsert(list, item('d', 40), ALL, 'inbox'))).toEqual(['d', 'c', 'b', 'a']);
    expect(ids(upsert(list, item('m', 25), ALL, 'inbox'))).toEqual(['c', 'm', 'b', 'a']);
    expect(ids(upsert(list, item('z', 5), ALL, 'inbox'))).toEqual(['c', 'b', 'a', 'z']);
    expect(ids(upsert([], item('x', 1), ALL, 'inbox'))).toEqual(['x']);
  });

  it('applies the filters: a non-matching new row is not shown, a row that stops matching leaves', () => {
    const crit = { severity: 'critical', eventType: '' };
    const critical = [item('c', 30, { severity: 'critical' })];
    expect(ids(upsert(critical, item('n', 40, { severity: 'info' }), crit, 'inbox'))).toEqual(['c']);
    expect(ids(upsert(critical, item('n', 40, { severity: 'critical' }), crit, 'inbox'))).toEqual(['n', 'c']);
    expect(ids(upsert(critical, item('c', 30, { severity: 'warn' }), crit, 'inbox'))).toEqual([]);
    const byType = { severity: '', eventType: 'deploy.done' };
    expect(ids(upsert([], item('t', 1, { eventType: 'deploy.done' }), byType, 'inbox'))).toEqual(['t']);
    expect(ids(upsert([], item('u', 1), byType, 'inbox'))).toEqual([]);
  });

  it("a search's list (insert false): a new row is never added; a listed row is updated in place, or leaves with its view", () => {
    expect(ids(upsert(list, item('n', 40), ALL, 'inbox', false, false))).toEqual(['c', 'b', 'a']);
    const updated = upsert(list, item('b', 20, { fireCount: 3 }), ALL, 'inbox', false, false);
    expect(ids(updated)).toEqual(['c', 'b', 'a']);
    expect(updated[1]!.fireCount).toBe(3);
    expect(ids(upsert(list, item('b', 20, { state: 'done' }), ALL, 'inbox', false, false))).toEqual(['c', 'a']);
  });
});

describe('views', () => {
  const at0 = [item('c', 30), item('b', 20), item('a', 10)];

  it('a row whose state no longer matches the view leaves it; one that now matches comes in at its place by creation', () => {
    expect(ids(upsert(at0, item('b', 20, { state: 'done' }), ALL, 'inbox'))).toEqual(['c', 'a']);
    expect(ids(upsert(at0, item('b', 20, { state: 'snoozed' }), ALL, 'inbox'))).toEqual(['c', 'a']);
    expect(ids(upsert(at0, item('b', 20, { state: 'done' }), ALL, 'all'))).toEqual(['c', 'b', 'a']);
    const done = [item('d', 40, { state: 'done' }), item('e', 5, { state: 'done' })];
    expect(ids(upsert(done, item('b', 20, { state: 'done' }), ALL, 'done'))).toEqual(['d', 'b', 'e']);
    expect(ids(upsert(done, item('d', 40, { state: 'inbox' }), ALL, 'done'))).toEqual(['e']);
    expect(ids(upsert(done, item('x', 50, { state: 'snoozed' }), ALL, 'done'))).toEqual(['d', 'e']);
  });

  it('listed_at places a row exactly: a woken snooze (created long ago, listed now) on top; a move back keeps its old place', () => {
    const woken = item('a', 10, { listedAt: at(50) });
    expect(ids(upsert(at0, woken, ALL, 'inbox'))).toEqual(['a', 'c', 'b']);
    expect(ids(upsert(at0, item('z', 1, { listedAt: at(45) }), ALL, 'inbox'))).toEqual(['z', 'c', 'b', 'a']);
    // Moved back to the Inbox (listed_at unchanged): between the rows listed around it.
    expect(ids(upsert([item('c', 30), item('a', 10)], item('b', 20, { listedAt: at(20), read: true }), ALL, 'inbox'))).toEqual(['c', 'b', 'a']);
    expect(ids(upsert(at0, item('a', 10, { read: true }), ALL, 'inbox'))).toEqual(['c', 'b', 'a']);
  });

  it('an arriving row goes to its place by listed_at, a woken row on top staying above older ones', () => {
    const woken = [item('w', 1, { listedAt: at(40) }), item('c', 30), item('a', 10)];
    expect(ids(upsert(woken, item('m', 20), ALL, 'inbox'))).toEqual(['w', 'c', 'm', 'a']);
    expect(ids(upsert(woken, item('n', 60), ALL, 'inbox'))).toEqual(['n', 'w', 'c', 'a']);
    expect(ids(upsert(woken, item('o', 35), ALL, 'inbox'))).toEqual(['w', 'o', 'c', 'a']);
  });

  it("ties on listed_at order by id, descending (the server's order)", () => {
    expect(ids(upsert([item('b', 20), item('a', 20)], item('c', 20), ALL, 'inbox'))).toEqual(['c', 'b', 'a']);
    expect(ids(upsert([item('c', 20), item('a', 20)], item('b', 20), ALL, 'inbox'))).toEqual(['c', 'b', 'a']);
    expect(listOrder(item('x', 20, { listedAt: timestampFromDate(new Date(Date.UTC(2026, 10, 25, 12, 20, 0, 5))) }), item('y', 20))).toBeLessThan(0);
  });

  it('with more pages, a new row below the loaded ones is left to "Load more"; a loaded one stays', () => {
    expect(ids(upsert(at0, item('z', 5), ALL, 'inbox', true))).toEqual(['c', 'b', 'a']);
    expect(ids(upsert(at0, item('z', 5), ALL, 'inbox', false))).toEqual(['c', 'b', 'a', 'z']);
    expect(ids(upsert(at0, item('m', 25), ALL, 'inbox', true))).toEqual(['c', 'm', 'b', 'a']);
    expect(ids(upsert(at0, item('a', 10, { read: true }), ALL, 'inbox', true))).toEqual(['c', 'b', 'a']);
  });

  it('viewOf: the four views by name, anything else the Inbox', () => {
    expect(['inbox', 'snoozed', 'done', 'all'].map(viewOf)).toEqual(['inbox', 'snoozed', 'done', 'all']);
    expect([null, undefined, '', 'Done', 'archive'].map(viewOf)).toEqual(['inbox', 'inbox', 'inbox', 'inbox', 'inbox']);
  });
});

describe('counts', () => {
  const c = countsOf(
    create(ListInboxResponseSchema, {
      viewCounts: { inbox: { total: 3, unread: 2 }, snoozed: { total: 1, unread: 1 }, done: { total: 2 }, all: { total: 6, unread: 3 } },
    }).viewCounts,
  )!;

  it('countsOf: every view, missing numbers 0; none without view counts', () => {
    expect(c).toEqual({ inbox: { total: 3, unread: 2 }, snoozed: { total: 1, unread: 1 }, done: { total: 2, unread: 0 }, all: { total: 6, unread: 3 } });
    expect(countsOf(undefined)).toBeUndefined();
  });

  it('shiftCounts: an unread row done (read by it) leaves Inbox and its unread count, joins Done; All keeps its rows, loses one unread', () => {
    expect(shiftCounts(c, { state: 'inbox', read: false }, { state: 'done', read: true })).toEqual({
      inbox: { total: 2, unread: 1 },
      snoozed: { total: 1, unread: 1 },
      done: { total: 3, unread: 0 },
      all: { total: 6, unread: 2 },
    });
  });

  it('shiftCounts: snoozed back to the Inbox, unread; marked read in place', () => {
    expect(shiftCounts(c, { state: 'snoozed', read: false }, { state: 'inbox', read: false })).toMatchObject({
      inbox: { total: 4, unread: 3 },
      snoozed: { total: 0, unread: 0 },
      all: { total: 6, unread: 3 },
    });
    expect(shiftCounts(c, { state: 'inbox', read: false }, { state: 'inbox', read: true })).toMatchObject({
      inbox: { total: 3, unread: 1 },
      all: { total: 6, unread: 2 },
    });
  });
});
