// The inbox tools through POST /mcp (SPEC C read tools list_inbox, get_notification; write tools
// mark_notification_read, mark_all_notifications_read; "Audit"; What the service does 8: the
// user's own data only).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { call, mcp, newAgent, toolText, type AgentUser } from './rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;

interface Inbox {
  personal: TestToken;
  agent: AgentUser;
  /** Notification ids of the published events, oldest first. */
  published: string[];
}

/** A user with a personal token (to publish) and an agent token (to read), and `n` published events. */
async function inboxWith(n: number, scopes?: string[]): Promise<Inbox> {
  const personal = await newPersonalToken(h);
  const agent = await newAgent(h, scopes, personal.user);
  for (let i = 0; i < n; i++) {
    h.clock.advance(1_000); // distinct created_at, so "newest first" is observable
    const r = await publish(
      h,
      personal.token,
      event(h, { title: `Event ${i}`, summary: `summary ${i}`, external_url: `https://ci.example.test/run/${i}`, markdown_body: `body ${i}` }),
    );
    expect(r.status, r.text).toBe(202);
  }
  const rows = await sql('select id from notifications where user_id = ? order by created_at asc', [personal.user.userId]);
  return { personal, agent, published: rows.map((r) => r.id) };
}

async function insertNotification(userId: string, over: { type: string; actorUserId?: string | null; readAt?: Date | null; title?: string }): Promise<string> {
  const id = randomUUID();
  h.clock.advance(1_000);
  const now = h.clock.now();
  await sql(
    `insert into notifications (id, user_id, type, title, summary, body, delivery_id, actor_user_id, target_url, tags, read_at, created_at, updated_at)
     values (?, ?, ?, ?, null, null, null, ?, ?, ?::jsonb, ?, ?, ?)`,
    [id, userId, over.type, over.title ?? `A ${over.type}`, over.actorUserId ?? null, `/tasks/${id}`, JSON.stringify(['t1']), over.readAt ?? null, now, now],
  );
  return id;
}

const tool = async (token: string, name: string, args: Record<string, unknown> = {}) => {
  const r = await mcp(h, call(name, args), { token });
  expect(r.status, r.text).toBe(200);
  return r.body;
};
const unread = async (id: string) => (await sql('select read_at from notifications where id = ?', [id]))[0].read_at === null;

describe('list_inbox', () => {
  it("lists only the caller's notifications, newest first, with counts", async () => {
    const a = await inboxWith(3, ['read:inbox']);
    const b = await inboxWith(2, ['read:inbox']);
    const body = await tool(a.agent.token, 'list_inbox');
    const out = toolText(body);
    expect(body.result.structuredContent).toEqual(out);
    expect(out.totalCount).toBe(3);
    expect(out.unreadCount).toBe(3);
    expect(out.items.map((i: any) => i.id)).toEqual([...a.published].reverse());
    expect(out.items.some((i: any) => b.published.includes(i.id))).toBe(false);
    expect(out.items[0]).toEqual({
      id: a.published[2],
      type: 'system',
      title: 'Event 2',
      summary: 'summary 2',
      read: false,
      createdAt: expect.any(String),
      targetUrl: 'https://ci.example.test/run/2',
      state: 'inbox',
      snoozedUntil: null,
      deliveryId: expect.any(String),
      eventType: expect.any(String),
      severity: expect.any(String),
      fireCount: 1,
    });
    expect(out.items[0].body).toBeUndefined(); // the list never carries bodies
  });

  it('filters by unreadOnly and type; counts follow the filters', async () => {
    const a = await inboxWith(2);
    const actor = await newAgent(h);
    const task = await insertNotification(a.personal.user.userId, { type: 'task', actorUserId: actor.userId });
    await insertNotification(a.personal.user.userId, { type: 'review', readAt: new Date() });
    await insertNotification(a.personal.user.userId, { type: 'task', readAt: new Date() });

    const all = toolText(await tool(a.agent.token, 'list_inbox'));
    expect(all).toMatchObject({ totalCount: 5, unreadCount: 3 });

    const unreadOnly = toolText(await tool(a.agent.token, 'list_inbox', { unreadOnly: true }));
    expect(unreadOnly.totalCount).toBe(3);
    expect(unreadOnly.items.every((i: any) => i.read === false)).toBe(true);

    const tasks = toolText(await tool(a.agent.token, 'list_inbox', { type: 'task' }));
    expect(tasks).toMatchObject({ totalCount: 2, unreadCount: 1 });
    expect(tasks.items.map((i: any) => i.type)).toEqual(['task', 'task']);
    expect(tasks.items.find((i: any) => i.id === task).actor).toEqual({ userId: actor.userId, email: actor.email, name: 'Agent Owner' });

    const unreadTasks = toolText(await tool(a.agent.token, 'list_inbox', { type: 'task', unreadOnly: true }));
    expect(unreadTasks.items.map((i: any) => i.id)).toEqual([task]);

    const meetings = toolText(await tool(a.agent.token, 'list_inbox', { type: 'meeting' }));
    expect(meetings).toEqual({ totalCount: 0, unreadCount: 0, items: [] });
  });

  it('limit: 1-200, default 50; totalCount still counts everything', async () => {
    const a = await inboxWith(3);
    const one = toolText(await tool(a.agent.token, 'list_inbox', { limit: 1 }));
    expect(one.items).toHaveLength(1);
    expect(one.totalCount).toBe(3);
    expect(toolText(await tool(a.agent.token, 'list_inbox', { limit: 200 })).items).toHaveLength(3);
    for (const limit of [0, 201, -1, 1.5, '10']) {
      const r = await mcp(h, call('list_inbox', { limit }), { token: a.agent.token });
      expect(r.body.error, JSON.stringify(limit)).toMatchObject({ code: -32602, data: { field: 'limit' } });
    }
    for (const type of ['alert', 'TASK']) {
      const r = await mcp(h, call('list_inbox', { type }), { token: a.agent.token });
      expect(r.body.error).toMatchObject({ code: -32602, data: { field: 'type' } });
    }
    const r = await mcp(h, call('list_inbox', { unreadOnly: 'yes' }), { token: a.agent.token });
    expect(r.body.error).toMatchObject({ code: -32602, data: { field: 'unreadOnly' } });
  });

  it('defaults to 50 items', async () => {
    const a = await inboxWith(0);
    for (let i = 0; i < 55; i++) await insertNotification(a.personal.user.userId, { type: 'system' });
    const out = toolText(await tool(a.agent.token, 'list_inbox'));
    expect(out.items).toHaveLength(50);
    expect(out.totalCount).toBe(55);
  });
});

describe('get_notification', () => {
  it('returns the full notification with actor (or null) and target URL', async () => {
    const a = await inboxWith(1, ['read:inbox']);
    const out = toolText(await tool(a.agent.token, 'get_notification', { notificationId: a.published[0] }));
    expect(out).toEqual({
      id: a.published[0],
      type: 'system',
      title: 'Event 0',
      summary: 'summary 0',
      body: 'body 0',
      read: false,
      readAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      actor: null,
      targetUrl: 'https://ci.example.test/run/0',
      deliveryId: expect.any(String),
      tags: [],
      state: 'inbox',
      snoozedUntil: null,
      doneAt: null,
      eventType: expect.any(String),
      severity: expect.any(String),
      fireCount: 1,
    });
    const actor = await newAgent(h);
    const withActor = await insertNotification(a.personal.user.userId, { type: 'review', actorUserId: actor.userId });
    const out2 = toolText(await tool(a.agent.token, 'get_notification', { notificationId: withActor }));
    expect(out2).toMatchObject({
      type: 'review',
      actor: { userId: actor.userId, email: actor.email, name: 'Agent Owner' },
      targetUrl: `/tasks/${withActor}`,
      tags: ['t1'],
    });
  });

  it("another user's notification is NOT_FOUND, exactly like an unknown id", async () => {
    const a = await inboxWith(0, ['read:inbox']);
    const b = await inboxWith(1);
    for (const id of [b.published[0], randomUUID()]) {
      const body = await tool(a.agent.token, 'get_notification', { notificationId: id });
      expect(body.result.isError).toBe(true);
      expect(body.result.structuredContent).toBeUndefined();
      expect(toolText(body)).toEqual({ error: 'NOT_FOUND: notification not found' });
    }
  });
});

describe('mark_notification_read', () => {
  it("marks one of the caller's notifications; again is {updated: false}", async () => {
    const a = await inboxWith(2, ['read:inbox', 'write:inbox']);
    const first = toolText(await tool(a.agent.token, 'mark_notification_read', { notificationId: a.published[0] }));
    expect(first).toEqual({ updated: true });
    expect(await unread(a.published[0]!)).toBe(false);
    expect(await unread(a.published[1]!)).toBe(true);
    expect(toolText(await tool(a.agent.token, 'mark_notification_read', { notificationId: a.published[0] }))).toEqual({ updated: false });
    const detail = toolText(await tool(a.agent.token, 'get_notification', { notificationId: a.published[0] }));
    expect(detail).toMatchObject({ read: true, readAt: expect.any(String) });
    expect(toolText(await tool(a.agent.token, 'list_inbox'))).toMatchObject({ totalCount: 2, unreadCount: 1 });
  });

  it("a second user's notification id is NOT_FOUND and nothing changes", async () => {
    const a = await inboxWith(0, ['write:inbox']);
    const b = await inboxWith(1);
    const body = await tool(a.agent.token, 'mark_notification_read', { notificationId: b.published[0] });
    expect(body.result.isError).toBe(true);
    expect(toolText(body)).toEqual({ error: 'NOT_FOUND: notification not found' });
    expect(await unread(b.published[0]!)).toBe(true);
    expect(await sql('select * from audit_log where token_id = ?', [a.agent.tokenId])).toEqual([]);
  });
});

describe('mark_all_notifications_read', () => {
  it('marks every unread notification of the caller only', async () => {
    const a = await inboxWith(3, ['read:inbox', 'write:inbox']);
    const b = await inboxWith(2);
    await tool(a.agent.token, 'mark_notification_read', { notificationId: a.published[1] });
    expect(toolText(await tool(a.agent.token, 'mark_all_notifications_read'))).toEqual({ updatedCount: 2 });
    expect(toolText(await tool(a.agent.token, 'list_inbox'))).toMatchObject({ totalCount: 3, unreadCount: 0 });
    for (const id of b.published) expect(await unread(id)).toBe(true);
    expect(toolText(await tool(a.agent.token, 'mark_all_notifications_read'))).toEqual({ updatedCount: 0 });
  });
});

describe('audit of agent writes', () => {
  it('every write is recorded with source mcp, the tool name and an input summary without secrets', async () => {
    const a = await inboxWith(2, ['write:inbox']);
    await tool(a.agent.token, 'mark_notification_read', { notificationId: a.published[0] });
    await tool(a.agent.token, 'mark_all_notifications_read');
    const rows = await sql(
      'select action, source, actor_user_id, token_id, target_type, target_id, summary from audit_log where token_id = ? order by created_at',
      [a.agent.tokenId],
    );
    expect(rows).toEqual([
      {
        action: 'inbox.notification.read',
        source: 'mcp',
        actor_user_id: a.agent.userId,
        token_id: a.agent.tokenId,
        target_type: 'notification',
        target_id: a.published[0],
        summary: { tool: 'mark_notification_read', notificationId: a.published[0], updated: true },
      },
      {
        action: 'inbox.notification.read_all',
        source: 'mcp',
        actor_user_id: a.agent.userId,
        token_id: a.agent.tokenId,
        target_type: 'user',
        target_id: a.agent.userId,
        summary: { tool: 'mark_all_notifications_read', updatedCount: 1 },
      },
    ]);
    const dump = JSON.stringify(await sql('select * from audit_log where actor_user_id = ?', [a.agent.userId]));
    expect(dump).not.toContain(a.agent.token);
    expect(dump).not.toContain(a.personal.token);
    expect(dump).not.toContain('body 0');
  });

  it('reads write no audit rows', async () => {
    const a = await inboxWith(1, ['read:inbox']);
    await tool(a.agent.token, 'list_inbox');
    await tool(a.agent.token, 'get_notification', { notificationId: a.published[0] });
    expect(await sql('select * from audit_log where token_id = ?', [a.agent.tokenId])).toEqual([]);
  });
});
