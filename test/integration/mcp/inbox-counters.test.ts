// list_inbox counts come from inbox_counters, kept by triggers on notifications
// (Migration20261122120000InboxCounters). SPEC C `list_inbox` wants exact totalCount and
// unreadCount for every filter: these tests compare the tool's counts with count(*) over the rows
// after every kind of write (publish, repeat publish, ORM insert, raw SQL, mark read, mark all
// read, delete, type change), under concurrency, and on embedded PGlite.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { call, mcp, newAgent, toolText } from './rpc.js';

const FILTERS: Array<Record<string, unknown>> = [
  {},
  { unreadOnly: true },
  ...['task', 'review', 'meeting', 'system'].flatMap((type) => [{ type }, { type, unreadOnly: true }]),
];

/** For every filter: the tool's counts equal count(*) over the user's rows, and the page is right. */
async function expectExact(h: Harness, userId: string, token: string): Promise<void> {
  const sql = (q: string, p: unknown[]) => h.svc.deps.orm.em.fork().getConnection().execute(q, p) as Promise<any[]>;
  h.clock.advance(61_000); // a fresh per-minute window for the 10 calls below
  for (const f of FILTERS) {
    const where = `user_id = ?${f.type ? ' and type = ?' : ''}${f.unreadOnly ? ' and read_at is null' : ''}`;
    const params = f.type ? [userId, f.type] : [userId];
    const [c] = await sql(`select count(*)::int as total, (count(*) filter (where read_at is null))::int as unread from notifications where ${where}`, params);
    const ids = (await sql(`select id from notifications where ${where} order by created_at desc, id desc limit 3`, params)).map((r) => r.id);
    const r = await mcp(h, call('list_inbox', { ...f, limit: 3 }), { token });
    expect(r.status, r.text).toBe(200);
    const out = toolText(r.body);
    expect({ filter: f, totalCount: out.totalCount, unreadCount: out.unreadCount }).toEqual({ filter: f, totalCount: c.total, unreadCount: c.unread });
    expect(
      out.items.map((i: any) => i.id),
      JSON.stringify(f),
    ).toEqual(ids);
  }
}

describe('inbox counters (PostgreSQL)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });
  const sql = (q: string, p: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, p) as Promise<any[]>;

  it('stay exact through every kind of write', async () => {
    const t = await newPersonalToken(h);
    const agent = await newAgent(h, ['read:inbox', 'write:inbox'], t.user);
    const other = await newPersonalToken(h);
    const otherAgent = await newAgent(h, ['read:inbox'], other.user);
    const uid = t.user.userId;
    await expectExact(h, uid, agent.token);

    // The one-statement publish path (insert), and a repeat (update of the same row: no change).
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      h.clock.advance(1_000);
      const ev = event(h, { title: `E${i}` });
      expect((await publish(h, t.token, ev)).status).toBe(202);
      expect((await publish(h, t.token, { ...ev, title: `E${i} again` })).status).toBe(200);
      ids.push(String(ev.event_id));
    }
    expect((await publish(h, other.token, event(h))).status).toBe(202);
    await expectExact(h, uid, agent.token);

    // Raw multi-row insert of mixed types and read states, ties on created_at.
    const now = h.clock.now();
    await sql(
      `insert into notifications (id, user_id, type, title, read_at, created_at, updated_at)
       select gen_random_uuid(), ?, (array['task','review','meeting','task'])[1 + g % 4], 'raw ' || g, case when g % 3 = 0 then ?::timestamptz end, ?, ?
       from generate_series(1, 40) g`,
      [uid, now, now, now],
    );
    await expectExact(h, uid, agent.token);

    // Mark one read, again (no change), then all read: through the tools.
    const [first] = await sql(`select id from notifications where user_id = ? and read_at is null order by created_at limit 1`, [uid]);
    for (let i = 0; i < 2; i++) expect((await mcp(h, call('mark_notification_read', { notificationId: first.id }), { token: agent.token })).status).toBe(200);
    await expectExact(h, uid, agent.token);
    expect(toolText((await mcp(h, call('mark_all_notifications_read'), { token: agent.token })).body).updatedCount).toBeGreaterThan(10);
    await expectExact(h, uid, agent.token);

    // Raw updates: mark unread again, change type, move rows between users; then delete some.
    await sql(`update notifications set read_at = null where user_id = ? and type = 'task'`, [uid]);
    await sql(`update notifications set type = 'meeting' where id in (select id from notifications where user_id = ? and type = 'review' limit 3)`, [uid]);
    await sql(`update notifications set user_id = ? where id in (select id from notifications where user_id = ? and type = 'meeting' limit 2)`, [
      other.user.userId,
      uid,
    ]);
    await expectExact(h, uid, agent.token);
    await expectExact(h, other.user.userId, otherAgent.token);
    await sql(`delete from notifications where id in (select id from notifications where user_id = ? and delivery_id is null order by created_at limit 7)`, [
      uid,
    ]);
    await expectExact(h, uid, agent.token);
    await expectExact(h, other.user.userId, otherAgent.token);

    // A rolled-back write leaves the counters as they were.
    await h.svc.deps.orm.em
      .fork()
      .transactional(async (em) => {
        await em
          .getConnection()
          .execute(
            `insert into notifications (id, user_id, type, title, created_at, updated_at) values (?, ?, 'task', 'gone', now(), now())`,
            [randomUUID(), uid],
            'run',
            em.getTransactionContext(),
          );
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await expectExact(h, uid, agent.token);
  });

  it('stay exact under concurrent publishes and reads for the same user', async () => {
    const t = await newPersonalToken(h);
    const agent = await newAgent(h, ['read:inbox', 'write:inbox'], t.user);
    h.clock.advance(1_000);
    const results = await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => publish(h, t.token, event(h, { title: `C${i}` }))),
      mcp(h, call('mark_all_notifications_read'), { token: agent.token }),
      mcp(h, call('list_inbox'), { token: agent.token }),
    ]);
    expect(results.slice(0, 30).map((r) => r.status)).toEqual(Array(30).fill(202));
    await expectExact(h, t.user.userId, agent.token);
    const out = toolText((await mcp(h, call('list_inbox', { limit: 1 }), { token: agent.token })).body);
    expect(out.totalCount).toBe(30);
  });
});

describe('inbox counters (embedded PGlite)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ mode: 'embedded' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the same triggers and counts on PGlite', async () => {
    const t = await newPersonalToken(h);
    const agent = await newAgent(h, ['read:inbox', 'write:inbox'], t.user);
    for (let i = 0; i < 3; i++) {
      h.clock.advance(1_000);
      expect((await publish(h, t.token, event(h, { title: `P${i}` }))).status).toBe(202);
    }
    await expectExact(h, t.user.userId, agent.token);
    const [row] = (await h.svc.deps.orm.em.fork().getConnection().execute(`select id from notifications where user_id = ? limit 1`, [t.user.userId])) as any[];
    expect((await mcp(h, call('mark_notification_read', { notificationId: row.id }), { token: agent.token })).status).toBe(200);
    await expectExact(h, t.user.userId, agent.token);
  });
});
