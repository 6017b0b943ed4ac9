// Triage through Connect (InboxService) and MCP: done, back to the Inbox, snooze and its wake, the
// views and their counts (exact, against the rows), each with the wrong caller (another user's ids:
// not_found, nothing changed) and bad input. The wake runs the maintenance task directly after
// moving the harness clock (no sleeping); its nudge reaches a local chat receiver once.
import { Code, createClient, type Client } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { InboxService } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { ChatStyle, NotificationSettingsService } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { wakeSnoozedTask } from '../../../src/domain/inbox/wake-snoozed-notifications.js';
import { withToken, type AgentUser } from '../../helpers/agents.js';
import { bearer, closeSessions, fails, transportFor, violations } from '../../helpers/connect.js';
import { event, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { call, mcp, toolText } from '../mcp/rpc.js';
import { startReceiver, until, type Receiver } from '../nudges/receiver.js';

let h: Harness;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startHarness({ env: { NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1', NUDGE_RELAY_INTERVAL_MS: '50' } });
});
afterAll(async () => {
  closeSessions();
  await h?.close();
  await rx?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;
const inbox = (token: string): Client<typeof InboxService> => createClient(InboxService, transportFor(h, 'connect', [bearer(token)]));

interface Person {
  pt: TestToken;
  ag: AgentUser;
  /** Notification ids, oldest first. */
  ids: string[];
}

/** A user with `n` published events (one second apart) and an agent token with both inbox scopes. */
async function person(n: number, over: Record<string, unknown> = {}): Promise<Person> {
  const pt = await newPersonalToken(h);
  const ag = await withToken(h, pt.user, ['read:inbox', 'write:inbox']);
  for (let i = 0; i < n; i++) {
    h.clock.advance(1_000);
    const r = await publish(h, pt.token, event(h, { title: `Item ${i}`, ...over }));
    expect(r.status, r.text).toBe(202);
  }
  const rows = await sql('select id from notifications where user_id = ? order by created_at', [pt.user.userId]);
  return { pt, ag, ids: rows.map((r) => r.id) };
}

/** The rows' states and counts straight from the table: the oracle for the counters. */
async function truth(userId: string) {
  const rows = await sql('select state, read_at from notifications where user_id = ?', [userId]);
  const of = (st: string[]) => ({
    total: rows.filter((r) => st.includes(r.state)).length,
    unread: rows.filter((r) => st.includes(r.state) && r.read_at === null).length,
  });
  return { inbox: of(['inbox']), snoozed: of(['snoozed']), done: of(['done']), all: of(['inbox', 'snoozed', 'done']) };
}

const tool = async (token: string, name: string, args: Record<string, unknown> = {}) => {
  const r = await mcp(h, call(name, args), { token });
  expect(r.status, r.text).toBe(200);
  return toolText(r.body);
};

describe('done and back to the Inbox (Connect)', () => {
  it('moves items between the views; counts match the rows; done means read', async () => {
    const p = await person(4);
    const c = inbox(p.ag.token);
    expect((await c.markDone({ notificationIds: [p.ids[0]!, p.ids[1]!] })).updatedCount).toBe(2);
    // Again: nothing more to change.
    expect((await c.markDone({ notificationIds: [p.ids[0]!] })).updatedCount).toBe(0);

    const view = await c.listInbox({});
    expect(view.items.map((i) => i.notificationId)).toEqual([p.ids[3], p.ids[2]]);
    expect(view.totalCount).toBe(2);
    const done = await c.listInbox({ view: 'done' });
    expect(done.items.map((i) => i.notificationId)).toEqual([p.ids[1], p.ids[0]]);
    expect(done.items.every((i) => i.state === 'done' && i.read && i.doneAt !== undefined)).toBe(true);
    const all = await c.listInbox({ view: 'all' });
    expect(all.items.map((i) => i.notificationId)).toEqual([...p.ids].reverse());
    const t = await truth(p.pt.user.userId);
    expect(view.viewCounts).toMatchObject(t);
    expect(t).toMatchObject({ inbox: { total: 2, unread: 2 }, done: { total: 2, unread: 0 }, all: { total: 4, unread: 2 } });
    expect(view.unreadCount).toBe(2);

    expect((await c.moveToInbox({ notificationIds: [p.ids[0]!, p.ids[3]!] })).updatedCount).toBe(1);
    const back = await c.listInbox({});
    // Back at its old place (oldest), and still read.
    expect(back.items.map((i) => i.notificationId)).toEqual([p.ids[3], p.ids[2], p.ids[0]]);
    expect(back.items[2]).toMatchObject({ state: 'inbox', read: true });
    expect(back.viewCounts).toMatchObject(await truth(p.pt.user.userId));
  });

  it('pages the Done and All views with page tokens', async () => {
    const p = await person(5);
    const c = inbox(p.ag.token);
    await c.markDone({ notificationIds: [p.ids[0]!, p.ids[2]!, p.ids[4]!] });
    const first = await c.listInbox({ view: 'all', limit: 2 });
    const second = await c.listInbox({ view: 'all', limit: 2, pageToken: first.nextPageToken });
    const third = await c.listInbox({ view: 'all', limit: 2, pageToken: second.nextPageToken });
    expect([...first.items, ...second.items, ...third.items].map((i) => i.notificationId)).toEqual([...p.ids].reverse());
    expect(third.nextPageToken).toBeUndefined();
    const d1 = await c.listInbox({ view: 'done', limit: 2 });
    const d2 = await c.listInbox({ view: 'done', limit: 2, pageToken: d1.nextPageToken });
    expect([...d1.items, ...d2.items].map((i) => i.notificationId)).toEqual([p.ids[4], p.ids[2], p.ids[0]]);
  });

  it("another user's id is not found and nothing changes, even beside the caller's own", async () => {
    const a = await person(1);
    const b = await person(1);
    for (const call of [
      () => inbox(a.ag.token).markDone({ notificationIds: [a.ids[0]!, b.ids[0]!] }),
      () => inbox(a.ag.token).moveToInbox({ notificationIds: [b.ids[0]!] }),
      () => inbox(a.ag.token).snooze({ notificationId: b.ids[0]!, preset: 'tomorrow', timeZone: 'UTC' }),
    ]) {
      const err = await fails(call());
      expect(err.code).toBe(Code.NotFound);
      expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBe('not_found');
    }
    expect(await sql('select state from notifications where id in (?, ?)', [a.ids[0], b.ids[0]])).toEqual([{ state: 'inbox' }, { state: 'inbox' }]);
  });

  it('refuses bad ids and too many ids with every violation, changing nothing', async () => {
    const p = await person(1);
    const c = inbox(p.ag.token);
    expect(violations(await fails(c.markDone({ notificationIds: [] })))).toEqual(['notificationIds:too_few']);
    expect(violations(await fails(c.markDone({ notificationIds: ['nope'] })))).toEqual(['notificationIds.0:invalid_format']);
    const many = Array.from({ length: 501 }, () => p.ids[0]!);
    expect(violations(await fails(c.moveToInbox({ notificationIds: many })))).toEqual(['notificationIds:too_many']);
    expect((await fails(c.listInbox({ view: 'later' }))).code).toBe(Code.InvalidArgument);
    expect((await truth(p.pt.user.userId)).inbox.total).toBe(1);
  });

  it('mark all done acts on the view and filters only, and says when more remain', async () => {
    const p = await person(3, { severity: 'warn' });
    await publish(h, p.pt.token, event(h, { title: 'critical one', severity: 'critical' }));
    const other = await person(2);
    const c = inbox(p.ag.token);
    expect(await c.markAllDone({ severities: ['warn'] })).toMatchObject({ updatedCount: 3, more: false });
    const left = await c.listInbox({});
    expect(left.items.map((i) => i.title)).toEqual(['critical one']);
    expect(left.viewCounts).toMatchObject(await truth(p.pt.user.userId));
    expect(await c.markAllDone({ view: 'done' })).toMatchObject({ updatedCount: 0, more: false });
    expect(await c.markAllDone({})).toMatchObject({ updatedCount: 1, more: false });
    expect((await truth(p.pt.user.userId)).done.total).toBe(4);
    // Another user's rows are never touched.
    expect((await truth(other.pt.user.userId)).inbox.total).toBe(2);
  });

  it('each item carries its group: the same token and event type share one', async () => {
    const p = await person(2, { event_type: 'personal.ci.failed' });
    await publish(h, p.pt.token, event(h, { event_type: 'personal.ci.passed' }));
    const other = await newPersonalToken(h, { user: p.pt.user });
    await publish(h, other.token, event(h, { event_type: 'personal.ci.failed' }));
    const items = (await inbox(p.ag.token).listInbox({ view: 'all' })).items;
    const keys = items.map((i) => i.groupKey);
    expect(keys[2]).toBe(keys[3]);
    expect(keys[3]).toBe(`${p.pt.tokenId}:personal.ci.failed`);
    expect(new Set(keys).size).toBe(3);
  });

  it('a read-only token may list views but not triage', async () => {
    const p = await person(1);
    const reader = await withToken(h, p.pt.user, ['read:inbox']);
    expect((await inbox(reader.token).listInbox({ view: 'done' })).totalCount).toBe(0);
    expect((await fails(inbox(reader.token).markDone({ notificationIds: p.ids }))).code).toBe(Code.PermissionDenied);
  });
});

describe('snooze and wake', () => {
  it('snoozes until a time; the wake brings it back on top, unread, and nudges once', async () => {
    const p = await person(2, { severity: 'warn' });
    const settings = createClient(NotificationSettingsService, transportFor(h, 'connect', [bearer(p.ag.token)]));
    const chatPath = `/chat/triage-${p.pt.user.userId.slice(0, 8)}`;
    await settings.setChatDestination({ url: `${rx.url}${chatPath}`, style: ChatStyle.SLACK });
    const c = inbox(p.ag.token);
    await c.markRead({ notificationId: p.ids[0]! });
    const until1 = new Date(h.clock.now().getTime() + 3_600_000);
    const s = await c.snooze({ notificationId: p.ids[0]!, until: timestampFromDate(until1) });
    expect(s.notificationId).toBe(p.ids[0]);
    expect(s.snoozedUntil?.seconds).toBe(BigInt(Math.floor(until1.getTime() / 1000)));

    const view = await c.listInbox({});
    expect(view.items.map((i) => i.notificationId)).toEqual([p.ids[1]]);
    const snoozed = await c.listInbox({ view: 'snoozed' });
    expect(snoozed.items[0]).toMatchObject({ notificationId: p.ids[0], state: 'snoozed' });
    expect(view.viewCounts).toMatchObject(await truth(p.pt.user.userId));

    // Not yet due: nothing wakes.
    h.clock.advance(3_599_000);
    expect((await wakeSnoozedTask.run(h.svc.deps, h.clock.now())).processed).toBe(0);
    h.clock.advance(1_000);
    // Two processes' runs at once: the row wakes once.
    const runs = await Promise.all([wakeSnoozedTask.run(h.svc.deps, h.clock.now()), wakeSnoozedTask.run(h.svc.deps, h.clock.now())]);
    expect(runs.map((r) => r.processed).sort()).toEqual([0, 1]);

    const after = await c.listInbox({});
    expect(after.items.map((i) => i.notificationId)).toEqual([p.ids[0], p.ids[1]]);
    expect(after.items[0]).toMatchObject({ state: 'inbox', read: false });
    // Its list position is the wake, ahead of the newer arrival's creation.
    expect(Number(after.items[0]!.listedAt!.seconds)).toBeGreaterThan(Number(after.items[1]!.listedAt!.seconds));
    expect(after.items[1]!.listedAt).toEqual(after.items[1]!.createdAt);
    expect(after.items[0]!.snoozedUntil).toBeUndefined();
    expect(after.viewCounts).toMatchObject(await truth(p.pt.user.userId));

    const hit = await until('the wake nudge', () => rx.hitsFor(chatPath).find((x) => String(x.headers['idempotency-key']).includes(':snooze:')));
    expect(JSON.parse(hit.body.toString()).text).toContain('Back from snooze: Item 0');
    // Once the outbox is drained, exactly one wake nudge went out.
    await until('an empty outbox', async () => (await sql('select count(*)::int as n from nudge_outbox where user_id = ?', [p.pt.user.userId]))[0].n === 0);
    expect(rx.hitsFor(chatPath).filter((x) => String(x.headers['idempotency-key']).includes(':snooze:'))).toHaveLength(1);
  });

  it('presets follow the time zone; the limits of until are checked', async () => {
    const p = await person(1);
    const c = inbox(p.ag.token);
    const tomorrow = await c.snooze({ notificationId: p.ids[0]!, preset: 'tomorrow', timeZone: 'America/New_York' });
    const at = new Date(Number(tomorrow.snoozedUntil!.seconds) * 1000);
    expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at)).toBe('09:00');
    const now = h.clock.now().getTime();
    const bad = async (input: Record<string, unknown>) => violations(await fails(c.snooze({ notificationId: p.ids[0]!, ...input })));
    expect(await bad({ until: timestampFromDate(new Date(now - 1000)) })).toEqual(['until:invalid_snooze_time']);
    expect(await bad({ until: timestampFromDate(new Date(now + 91 * 86_400_000)) })).toEqual(['until:invalid_snooze_time']);
    expect(await bad({ until: { seconds: 10n ** 15n, nanos: 0 } })).toEqual(['until:invalid_format']);
    expect(await bad({ preset: 'tomorrow', timeZone: 'Mars/Olympus' })).toEqual(['timeZone:invalid']);
    expect(await bad({ preset: 'tomorrow' })).toEqual(['timeZone:invalid']);
    expect(await bad({})).toEqual(['until:invalid']);
    // The row kept the first snooze.
    expect(new Date((await sql('select snoozed_until from notifications where id = ?', [p.ids[0]]))[0].snoozed_until).getTime()).toBe(at.getTime());
  });
});

describe('the same operations as MCP tools', () => {
  it('mark done, list views, snooze, move back; items carry state and event fields', async () => {
    const p = await person(3, { severity: 'critical', external_status: 'firing' });
    expect(await tool(p.ag.token, 'mark_notifications_done', { notificationIds: [p.ids[0]] })).toEqual({ updatedCount: 1 });
    const until1 = new Date(h.clock.now().getTime() + 7_200_000).toISOString();
    const s = await tool(p.ag.token, 'snooze_notification', { notificationId: p.ids[1], until: until1 });
    expect(s).toEqual({ notificationId: p.ids[1], snoozedUntil: until1 });

    const view = await tool(p.ag.token, 'list_inbox');
    expect(view.items.map((i: any) => i.id)).toEqual([p.ids[2]]);
    expect(view).toMatchObject({ totalCount: 1, unreadCount: 1 });
    expect(view.items[0]).toMatchObject({ state: 'inbox', snoozedUntil: null, severity: 'critical', externalStatus: 'firing', fireCount: 1 });
    const snoozed = await tool(p.ag.token, 'list_inbox', { view: 'snoozed' });
    expect(snoozed.items).toEqual([expect.objectContaining({ id: p.ids[1], state: 'snoozed', snoozedUntil: until1 })]);
    expect(await tool(p.ag.token, 'list_inbox', { view: 'done' })).toMatchObject({ totalCount: 1, unreadCount: 0 });
    expect(await tool(p.ag.token, 'list_inbox', { view: 'all' })).toMatchObject({ totalCount: 3 });
    expect(await tool(p.ag.token, 'get_notification', { notificationId: p.ids[0] })).toMatchObject({ state: 'done', doneAt: expect.any(String) });

    expect(await tool(p.ag.token, 'move_notifications_to_inbox', { notificationIds: p.ids })).toEqual({ updatedCount: 2 });
    expect((await tool(p.ag.token, 'list_inbox')).totalCount).toBe(3);
    const audit = await sql(`select action, source from audit_log where token_id = ? and action like 'inbox.notification.%' order by created_at`, [
      p.ag.tokenId,
    ]);
    expect(audit).toEqual([
      { action: 'inbox.notification.done', source: 'mcp' },
      { action: 'inbox.notification.snoozed', source: 'mcp' },
      { action: 'inbox.notification.to_inbox', source: 'mcp' },
    ]);
  });

  it("another user's id answers NOT_FOUND and changes nothing", async () => {
    const a = await person(1);
    const b = await person(1);
    for (const [name, args] of [
      ['mark_notifications_done', { notificationIds: [b.ids[0]] }],
      ['move_notifications_to_inbox', { notificationIds: [a.ids[0], b.ids[0]] }],
      ['snooze_notification', { notificationId: b.ids[0], preset: 'one_hour', timeZone: 'UTC' }],
    ] as const) {
      expect(await tool(a.ag.token, name, args)).toEqual({ error: 'NOT_FOUND: notification not found' });
    }
    expect((await truth(b.pt.user.userId)).inbox.total).toBe(1);
  });
});

describe('wait_for_inbox', () => {
  it('answers at once without a cursor, and at once when something arrived since the cursor', async () => {
    const p = await person(1);
    const first = await tool(p.ag.token, 'wait_for_inbox');
    expect(first).toEqual({ items: [], cursor: expect.any(String) });
    h.clock.advance(1_000);
    await publish(h, p.pt.token, event(h, { title: 'arrived meanwhile' }));
    const started = Date.now();
    const next = await tool(p.ag.token, 'wait_for_inbox', { after: first.cursor, timeoutSeconds: 7 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(next.items.map((i: any) => i.title)).toEqual(['arrived meanwhile']);
    expect(next.items[0]).toMatchObject({ state: 'inbox', read: false, eventType: expect.any(String) });
    expect(next.cursor).not.toBe(first.cursor);
  });

  it("wakes within a second of a publish while it waits; another user's publish does not wake it", async () => {
    const p = await person(0);
    const other = await person(0);
    const { cursor } = await tool(p.ag.token, 'wait_for_inbox');
    h.clock.advance(1_000);
    const started = Date.now();
    const waiting = tool(p.ag.token, 'wait_for_inbox', { after: cursor, timeoutSeconds: 7 });
    await new Promise((r) => setTimeout(r, 300));
    await publish(h, other.pt.token, event(h, { title: 'not yours' }));
    await new Promise((r) => setTimeout(r, 300));
    const published = Date.now();
    await publish(h, p.pt.token, event(h, { title: 'while waiting' }));
    const out = await waiting;
    expect(out.items.map((i: any) => i.title)).toEqual(['while waiting']);
    expect(Date.now() - published).toBeLessThan(1_500);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('times out with no items; a triaged row is not news; bad input is refused', async () => {
    const p = await person(1);
    const { cursor } = await tool(p.ag.token, 'wait_for_inbox');
    h.clock.advance(1_000);
    // Done elsewhere: the Inbox view has nothing new.
    await tool(p.ag.token, 'mark_notifications_done', { notificationIds: p.ids });
    const started = Date.now();
    const out = await tool(p.ag.token, 'wait_for_inbox', { after: cursor, timeoutSeconds: 1 });
    expect(out.items).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    for (const args of [{ after: 'nope' }, { after: cursor, timeoutSeconds: 8 }, { after: cursor, timeoutSeconds: 0 }]) {
      const r = await mcp(h, call('wait_for_inbox', args), { token: p.ag.token });
      expect(r.body.error?.code ?? r.body.result?.isError, r.text).toBeTruthy();
    }
  });
});
