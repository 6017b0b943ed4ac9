// InboxService.MarkUnread through the real Connect client: the caller's rows unread again by ids, in
// any view, idempotent; the counters (inbox_counters, kept by their triggers) exact against the rows
// in every view and in unread_count; another user's id not found with nothing changed; the id list
// checked like MarkDone's (1-500 uuids, the validation envelope); a token without write:inbox and a
// web session; the audit row.
import { Code, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { InboxService } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { pgArray } from '../../../src/domain/sql-hints.js';
import { withToken, type AgentUser } from '../../helpers/agents.js';
import { bearer, closeSessions, fails, transportFor, violations, webSession, withSession } from '../../helpers/connect.js';
import { event, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;
const inbox = (token: string): Client<typeof InboxService> => createClient(InboxService, transportFor(h, 'connect', [bearer(token)]));

interface Person {
  pt: TestToken;
  ag: AgentUser;
  /** Notification ids, oldest first. */
  ids: string[];
}

async function person(n: number): Promise<Person> {
  const pt = await newPersonalToken(h);
  const ag = await withToken(h, pt.user, ['read:inbox', 'write:inbox']);
  for (let i = 0; i < n; i++) {
    h.clock.advance(1_000);
    const r = await publish(h, pt.token, event(h, { title: `Item ${i}` }));
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

/** The counter rows summed per state, as the triggers keep them. */
async function counters(userId: string) {
  const rows = await sql('select state, sum(total)::int as total, sum(unread)::int as unread from inbox_counters where user_id = ? group by state', [userId]);
  const of = (st: string) => {
    const r = rows.find((x) => x.state === st);
    return { total: r?.total ?? 0, unread: r?.unread ?? 0 };
  };
  return { inbox: of('inbox'), snoozed: of('snoozed'), done: of('done') };
}

/** Every view's counts, the list's unread count and the counter rows agree with the rows themselves. */
async function expectExact(c: Client<typeof InboxService>, userId: string) {
  const t = await truth(userId);
  for (const view of ['inbox', 'snoozed', 'done', 'all']) {
    const out = await c.listInbox({ view });
    expect(out.viewCounts, view).toMatchObject(t);
    expect(out.unreadCount, view).toBe(t.all.unread);
    expect(out.items.filter((i) => !i.read).length, view).toBe(t[view as keyof typeof t].unread);
  }
  expect(await counters(userId)).toEqual({ inbox: t.inbox, snoozed: t.snoozed, done: t.done });
  return t;
}

const readAt = async (ids: string[]) =>
  (await sql('select read_at from notifications where id = any(?::uuid[]) order by created_at', [pgArray(ids)])).map((r) => r.read_at);

describe('MarkUnread', () => {
  it('marks read rows unread again in every view; idempotent; counts exact; audited', async () => {
    const p = await person(4);
    const c = inbox(p.ag.token);
    await c.markAllRead({});
    await c.markDone({ notificationIds: [p.ids[0]!] });
    await c.snooze({ notificationId: p.ids[1]!, preset: 'tomorrow', timeZone: 'UTC' });
    let t = await expectExact(c, p.pt.user.userId);
    expect(t.all).toEqual({ total: 4, unread: 0 });

    // A done, a snoozed and an Inbox row: each view's unread follows.
    const out = await c.markUnread({ notificationIds: [p.ids[0]!, p.ids[1]!, p.ids[2]!] });
    expect(out).toMatchObject({ updatedCount: 3, unreadCount: 3 });
    t = await expectExact(c, p.pt.user.userId);
    expect(t).toMatchObject({ inbox: { total: 2, unread: 1 }, snoozed: { total: 1, unread: 1 }, done: { total: 1, unread: 1 } });
    // The states did not move.
    expect((await sql('select state from notifications where id = ?', [p.ids[0]]))[0].state).toBe('done');

    // Again (and one id twice, in another case): nothing more to change, the count stays.
    expect(await c.markUnread({ notificationIds: [p.ids[2]!, p.ids[2]!.toUpperCase()] })).toMatchObject({ updatedCount: 0, unreadCount: 3 });
    // Mixed: only the read one counts.
    expect(await c.markUnread({ notificationIds: [p.ids[2]!, p.ids[3]!] })).toMatchObject({ updatedCount: 1, unreadCount: 4 });
    expect(await readAt(p.ids)).toEqual([null, null, null, null]);
    await expectExact(c, p.pt.user.userId);

    // Read and unread again, through MarkRead: its unread count agrees.
    expect((await c.markRead({ notificationId: p.ids[3]! })).unreadCount).toBe(3);
    const item = (await c.getInboxItem({ notificationId: p.ids[3]! })).item!;
    expect(item.read).toBe(true);
    expect(await c.markUnread({ notificationIds: [p.ids[3]!] })).toMatchObject({ updatedCount: 1, unreadCount: 4 });
    const unread = (await c.getInboxItem({ notificationId: p.ids[3]! })).item!;
    expect([unread.read, unread.readAt]).toEqual([false, undefined]);
    await expectExact(c, p.pt.user.userId);

    const audit = await sql(`select action, source, summary from audit_log where token_id = ? and action = 'inbox.notification.unread' order by created_at`, [
      p.ag.tokenId,
    ]);
    expect(audit.map((a) => [a.action, a.source])).toEqual([
      ['inbox.notification.unread', 'connect'],
      ['inbox.notification.unread', 'connect'],
      ['inbox.notification.unread', 'connect'],
      ['inbox.notification.unread', 'connect'],
    ]);
    const summary = typeof audit[0].summary === 'string' ? JSON.parse(audit[0].summary) : audit[0].summary;
    expect(summary).toMatchObject({ updatedCount: 3 });
    expect([...summary.notificationIds].sort()).toEqual([p.ids[0], p.ids[1], p.ids[2]].sort());
  });

  it("another user's id is not found and nothing changes, even beside the caller's own", async () => {
    const a = await person(1);
    const b = await person(1);
    await inbox(a.ag.token).markAllRead({});
    await inbox(b.ag.token).markAllRead({});
    for (const ids of [[b.ids[0]!], [a.ids[0]!, b.ids[0]!], [crypto.randomUUID()]]) {
      const err = await fails(inbox(a.ag.token).markUnread({ notificationIds: ids }));
      expect(err.code).toBe(Code.NotFound);
      expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBe('not_found');
    }
    expect((await readAt([a.ids[0]!, b.ids[0]!])).every((r) => r !== null)).toBe(true);
    await expectExact(inbox(a.ag.token), a.pt.user.userId);
    await expectExact(inbox(b.ag.token), b.pt.user.userId);
  });

  it('refuses 0 and 501 ids, NUL and non-uuid ids with the validation envelope, changing nothing', async () => {
    const p = await person(1);
    const c = inbox(p.ag.token);
    await c.markAllRead({});
    const bad = async (ids: string[]) => {
      const err = await fails(c.markUnread({ notificationIds: ids }));
      expect(err.code).toBe(Code.InvalidArgument);
      expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBe('schema_invalid');
      return violations(err);
    };
    expect(await bad([])).toEqual(['notificationIds:too_few']);
    expect(await bad(Array.from({ length: 501 }, () => p.ids[0]!))).toEqual(['notificationIds:too_many']);
    expect(await bad(['nope'])).toEqual(['notificationIds.0:invalid_format']);
    expect(await bad([p.ids[0]!, ''])).toEqual(['notificationIds.1:invalid_format']);
    // NUL: every violation of the id (a control character, not a uuid).
    expect(await bad([`${p.ids[0]!}\u0000`])).toEqual(['notificationIds.0:invalid_characters', 'notificationIds.0:invalid_format']);
    expect(await bad([p.ids[0]!, '\u0000'])).toEqual(['notificationIds.1:invalid_characters', 'notificationIds.1:invalid_format']);
    expect((await readAt(p.ids))[0]).not.toBeNull();
    // 500 ids (the same one) are fine.
    expect(await c.markUnread({ notificationIds: Array.from({ length: 500 }, () => p.ids[0]!) })).toMatchObject({ updatedCount: 1, unreadCount: 1 });
  });

  it('needs write:inbox: a read-only token is refused, nothing changes; a web session may', async () => {
    const p = await person(1);
    await inbox(p.ag.token).markAllRead({});
    const reader = await withToken(h, p.pt.user, ['read:inbox']);
    const err = await fails(inbox(reader.token).markUnread({ notificationIds: p.ids }));
    expect(err.code).toBe(Code.PermissionDenied);
    expect((await readAt(p.ids))[0]).not.toBeNull();
    expect((await fails(createClient(InboxService, transportFor(h, 'connect')).markUnread({ notificationIds: p.ids }))).code).toBe(Code.Unauthenticated);

    const web = createClient(InboxService, transportFor(h, 'connect', [withSession(await webSession(h, p.pt.user.email))]));
    expect(await web.markUnread({ notificationIds: p.ids })).toMatchObject({ updatedCount: 1, unreadCount: 1 });
  });
});
