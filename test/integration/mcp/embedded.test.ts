// The agent protocol in embedded mode (PGlite, in-process rate limiter): the inbox SQL and the
// write audit behave as on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { call, mcp, newAgent, rpc, toolText } from './rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: 'embedded' });
});
afterAll(async () => {
  await h?.close();
});

describe('MCP on the embedded database', () => {
  it("lists, reads and marks the caller's notifications; writes are audited", async () => {
    const p = await newPersonalToken(h);
    const other = await newPersonalToken(h);
    for (const t of [p, p, other]) expect((await publish(h, t.token, event(h, { external_url: 'https://ci.example.test/x' }))).status).toBe(202);
    const a = await newAgent(h, ['read:inbox', 'write:inbox'], p.user);

    const batch = await mcp(
      h,
      [rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {} }, 0), call('list_inbox', { type: 'system', unreadOnly: true, limit: 1 }, 1)],
      { token: a.token },
    );
    expect(batch.status).toBe(200);
    const list = toolText(batch.body[1]);
    expect(list).toMatchObject({ totalCount: 2, unreadCount: 2 });
    expect(list.items).toHaveLength(1);

    const id = list.items[0].id;
    expect(toolText((await mcp(h, call('get_notification', { notificationId: id }), { token: a.token })).body)).toMatchObject({
      id,
      targetUrl: 'https://ci.example.test/x',
      actor: null,
    });
    expect(toolText((await mcp(h, call('mark_notification_read', { notificationId: id }), { token: a.token })).body)).toEqual({ updated: true });
    expect(toolText((await mcp(h, call('mark_all_notifications_read'), { token: a.token })).body)).toEqual({ updatedCount: 1 });
    expect(toolText((await mcp(h, call('list_inbox'), { token: a.token })).body)).toMatchObject({ totalCount: 2, unreadCount: 0 });

    const audit = (await h.svc.deps.orm.em
      .getConnection()
      .execute('select action, source from audit_log where token_id = ? order by created_at', [a.tokenId])) as Array<{ action: string; source: string }>;
    expect(audit).toEqual([
      { action: 'inbox.notification.read', source: 'mcp' },
      { action: 'inbox.notification.read_all', source: 'mcp' },
    ]);
  });
});
