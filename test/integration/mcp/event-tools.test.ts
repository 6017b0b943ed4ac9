// Inbound event tools through POST /mcp (SPEC C write tools resolve_inbound_event,
// supplement_inbound_event, broadcast_event; "Delivery external status": original sender; Errors:
// broadcast_event error_envelope {code, title, detail, field, next_action} and its hint table).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, newUser, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { adminTools, approvedEmployee, claimedEmployee, type ToolsFixture } from '../../helpers/tools.js';
import { adminAgent, expectInvalidParams, expectMissingScope, failed, memberAgent, ok, sqlOf } from './admin-fixtures.js';
import { newAgent, type AgentUser } from './rpc.js';

let h: Harness;
let sql: ReturnType<typeof sqlOf>;
beforeAll(async () => {
  h = await startHarness();
  sql = sqlOf(h);
});
afterAll(async () => {
  await h?.close();
});

/** A sender (personal token + agent token of the same user) and one delivered event. */
async function senderWithDelivery(scopes = ['write:inbound']): Promise<{ personal: TestToken; agent: AgentUser; deliveryId: string }> {
  const personal = await newPersonalToken(h);
  const agent = await newAgent(h, scopes, personal.user);
  const r = await publish(h, personal.token, event(h, { markdown_body: 'original body' }));
  expect(r.status, r.text).toBe(202);
  return { personal, agent, deliveryId: r.body.deliveryId };
}

describe('resolve_inbound_event', () => {
  it('the original sender resolves; a repeat keeps the first stamp; the delivery shows it', async () => {
    const s = await senderWithDelivery();
    const out = await ok(h, s.agent.token, 'resolve_inbound_event', { delivery_id: s.deliveryId, resolution_note: 'fixed by rollback' });
    expect(out).toEqual({ ok: true, deliveryId: s.deliveryId, resolved: true, resolvedAt: expect.any(String), resolutionNote: 'fixed by rollback' });
    h.clock.advance(60_000);
    const again = await ok(h, s.agent.token, 'resolve_inbound_event', { delivery_id: s.deliveryId, resolution_note: 'other note' });
    expect(again).toEqual(out);
    const read = await http(h, 'GET', `/api/v1/events/${s.deliveryId}`, { token: s.personal.token });
    expect(read.body).toMatchObject({ resolvedAt: out.resolvedAt, resolutionNote: 'fixed by rollback', externalStatus: 'resolved' });
    const audit = await sql('select action, source, target_id, summary from audit_log where token_id = ?', [s.agent.tokenId]);
    expect(audit[0]).toEqual({
      action: 'inbound.event.resolved',
      source: 'mcp',
      target_id: s.deliveryId,
      summary: { tool: 'resolve_inbound_event', delivery_id: s.deliveryId, with_note: true },
    });
  });

  it('without a note: resolutionNote is left out', async () => {
    const s = await senderWithDelivery();
    expect(await ok(h, s.agent.token, 'resolve_inbound_event', { delivery_id: s.deliveryId })).toEqual({
      ok: true,
      deliveryId: s.deliveryId,
      resolved: true,
      resolvedAt: expect.any(String),
    });
  });

  it("another user's delivery is NOT_FOUND (no leak) and unchanged; an admin may resolve it", async () => {
    const s = await senderWithDelivery();
    const other = await memberAgent(h, ['write:inbound']);
    for (const id of [s.deliveryId, randomUUID()]) {
      expect(await failed(h, other.token, 'resolve_inbound_event', { delivery_id: id })).toEqual({ error: 'NOT_FOUND: delivery not found' });
    }
    expect((await sql('select resolved_at from deliveries where id = ?', [s.deliveryId]))[0].resolved_at).toBeNull();
    const admin = await adminAgent(h, ['write:inbound']);
    expect(await ok(h, admin.token, 'resolve_inbound_event', { delivery_id: s.deliveryId })).toMatchObject({ resolved: true });
  });

  it('needs write:inbound; input is checked', async () => {
    const s = await senderWithDelivery(['read:inbox']);
    await expectMissingScope(h, s.agent.token, 'resolve_inbound_event', { delivery_id: s.deliveryId }, 'write:inbound');
    const w = await senderWithDelivery();
    await expectInvalidParams(h, w.agent.token, 'resolve_inbound_event', { delivery_id: 'nope' }, 'delivery_id');
    await expectInvalidParams(h, w.agent.token, 'resolve_inbound_event', { delivery_id: w.deliveryId, resolution_note: 'x'.repeat(501) }, 'resolution_note');
  });
});

describe('supplement_inbound_event', () => {
  it('the sender appends a follow-up; the original text never changes', async () => {
    const s = await senderWithDelivery();
    const out = await ok(h, s.agent.token, 'supplement_inbound_event', { delivery_id: s.deliveryId, markdown_body: 'root cause: disk full' });
    expect(out).toEqual({ ok: true, deliveryId: s.deliveryId, supplementId: expect.any(String), createdAt: expect.any(String) });
    const second = await ok(h, s.agent.token, 'supplement_inbound_event', { delivery_id: s.deliveryId, markdown_body: 'x'.repeat(4000) });
    expect(second.supplementId).not.toBe(out.supplementId);
    const read = await http(h, 'GET', `/api/v1/events/${s.deliveryId}`, { token: s.personal.token });
    expect(read.body.supplements.map((x: any) => x.id)).toEqual([out.supplementId, second.supplementId]);
    expect(read.body.supplements[0]).toEqual({ id: out.supplementId, markdownBody: 'root cause: disk full', createdAt: out.createdAt });
    expect((await sql('select markdown_body from deliveries where id = ?', [s.deliveryId]))[0].markdown_body).toBe('original body');
    const [a] = await sql('select summary from audit_log where token_id = ? order by created_at limit 1', [s.agent.tokenId]);
    expect(a.summary).toEqual({ tool: 'supplement_inbound_event', delivery_id: s.deliveryId, supplement_id: out.supplementId, length: 21 });
    expect(JSON.stringify(await sql('select * from audit_log where token_id = ?', [s.agent.tokenId]))).not.toContain('disk full');
  });

  it("at most 4000 characters; another user's delivery is NOT_FOUND; an admin may supplement", async () => {
    const s = await senderWithDelivery();
    await expectInvalidParams(h, s.agent.token, 'supplement_inbound_event', { delivery_id: s.deliveryId, markdown_body: 'x'.repeat(4001) }, 'markdown_body');
    await expectInvalidParams(h, s.agent.token, 'supplement_inbound_event', { delivery_id: s.deliveryId, markdown_body: '' }, 'markdown_body');
    const other = await memberAgent(h, ['write:inbound']);
    expect(await failed(h, other.token, 'supplement_inbound_event', { delivery_id: s.deliveryId, markdown_body: 'hi' })).toEqual({
      error: 'NOT_FOUND: delivery not found',
    });
    expect(await sql('select id from delivery_supplements where delivery_id = ?', [s.deliveryId])).toEqual([]);
    const admin = await adminAgent(h, ['write:inbound']);
    expect((await ok(h, admin.token, 'supplement_inbound_event', { delivery_id: s.deliveryId, markdown_body: 'admin note' })).deliveryId).toBe(s.deliveryId);
    await expectMissingScope(
      h,
      (await memberAgent(h, ['write:inbox'])).token,
      'supplement_inbound_event',
      { delivery_id: s.deliveryId, markdown_body: 'x' },
      'write:inbound',
    );
  });
});

describe('broadcast_event', () => {
  /** An admin's agent token plus a tools-token that admin owns. */
  async function broadcaster(scopes = ['admin:broadcast']): Promise<{ tools: ToolsFixture; agent: AgentUser }> {
    const tools = await adminTools(h);
    return { tools, agent: await newAgent(h, scopes, tools.admin) };
  }
  const args = (tools: ToolsFixture, over: Record<string, unknown> = {}) => ({
    event_type: `${tools.prefix}maintenance.planned`,
    severity: 'info',
    title: 'Maintenance tonight',
    summary: 'DB upgrade 22:00 UTC',
    ...over,
  });

  it("delivers to each recipient through the caller's tools-token; failures carry error_envelope with next_action", async () => {
    const { tools, agent } = await broadcaster();
    const claimed = await claimedEmployee(h, tools);
    const approved = await approvedEmployee(h, tools);
    const unapproved = await newUser(h);
    const inactive = await approvedEmployee(h, tools);
    await sql(`update users set status = 'offboarded' where id = ?`, [inactive.userId]);
    const ghost = `ghost-${randomUUID()}@example.test`;
    const out = await ok(h, agent.token, 'broadcast_event', {
      ...args(tools),
      recipients: [claimed.user.email, approved.email.toUpperCase(), unapproved.email, inactive.email, ghost],
      tools_token_id: tools.tokenId,
    });
    expect(out.ok).toBe(false);
    expect(out.event_id).toMatch(/^broadcast-[0-9a-f]{16}$/);
    const [c, a, u, i, g] = out.delivered;
    expect(c).toEqual({ email: claimed.user.email, deliveryId: expect.any(String), deduped: false, pushed: false });
    expect(a).toEqual({ email: approved.email, deliveryId: expect.any(String), deduped: false, pushed: false, autoClaimed: true });
    expect(u).toEqual({
      email: unapproved.email,
      error: 'no_approved_request',
      error_envelope: {
        code: 'no_approved_request',
        title: 'No approved request',
        detail: expect.any(String),
        field: 'recipients[2]',
        next_action: expect.stringContaining('assign_catalog_to_employee'),
      },
    });
    expect(i).toMatchObject({
      email: inactive.email,
      error: 'user_inactive',
      error_envelope: { code: 'user_inactive', field: 'recipients[3]', next_action: 'drop the email or reactivate the user' },
    });
    expect(g).toMatchObject({
      email: ghost,
      error: 'user_not_found',
      error_envelope: { code: 'user_not_found', field: 'recipients[4]', next_action: expect.any(String) },
    });
    // Hints never carry secrets or email lists.
    for (const row of out.delivered.filter((r: any) => r.error)) expect(row.error_envelope.next_action).not.toMatch(/@|svc-/);

    // Each recipient got their own delivery in their own inbox.
    const rows = await sql(
      'select d.recipient_user_id, d.event_id, n.title from deliveries d join notifications n on n.delivery_id = d.id where d.id = any(?::uuid[])',
      [`{${c.deliveryId},${a.deliveryId}}`],
    );
    expect(rows.map((r) => r.recipient_user_id).sort()).toEqual([claimed.user.userId, approved.userId].sort());
    expect(rows.every((r) => r.event_id === out.event_id && r.title === 'Maintenance tonight')).toBe(true);
    const [audit] = await sql('select action, source, target_id, summary from audit_log where token_id = ? and action = ?', [
      agent.tokenId,
      'events.broadcast',
    ]);
    expect(audit).toMatchObject({
      source: 'mcp',
      target_id: out.event_id,
      summary: { tool: 'broadcast_event', recipients: 5, delivered: 2, failed: 3, tools_token_id: tools.tokenId, auto_claim: true },
    });
    expect(JSON.stringify(audit)).not.toContain('@');
  });

  it('event_id_prefix makes a retry dedup per recipient; auto_claim false refuses unclaimed recipients', async () => {
    const { tools, agent } = await broadcaster();
    const claimed = await claimedEmployee(h, tools);
    const approved = await approvedEmployee(h, tools);
    const first = await ok(h, agent.token, 'broadcast_event', {
      ...args(tools),
      recipients: [claimed.user.email],
      tools_token_id: tools.tokenId,
      event_id_prefix: 'maint-2026-11',
    });
    expect(first.event_id).toMatch(/^maint-2026-11-[0-9a-f]{16}$/);
    const retry = await ok(h, agent.token, 'broadcast_event', {
      ...args(tools),
      recipients: [claimed.user.email],
      tools_token_id: tools.tokenId,
      event_id_prefix: 'maint-2026-11',
    });
    expect(retry).toEqual({
      ok: true,
      event_id: first.event_id,
      delivered: [{ email: claimed.user.email, deliveryId: first.delivered[0].deliveryId, deduped: true, pushed: false }],
    });
    const noClaim = await ok(h, agent.token, 'broadcast_event', {
      ...args(tools),
      recipients: [approved.email],
      tools_token_id: tools.tokenId,
      auto_claim: false,
    });
    expect(noClaim.delivered[0]).toMatchObject({ error: 'no_approved_request', error_envelope: { code: 'no_approved_request' } });
  });

  it('without tools_token_id every row is no_token, pointing at tools_token_id', async () => {
    const { tools, agent } = await broadcaster();
    const a = await newUser(h);
    const out = await ok(h, agent.token, 'broadcast_event', { ...args(tools), recipients: [a.email, 'b@example.test'] });
    expect(out.ok).toBe(false);
    expect(out.delivered).toEqual(
      [a.email, 'b@example.test'].map((email) => ({
        email,
        error: 'no_token',
        error_envelope: {
          code: 'no_token',
          title: expect.any(String),
          detail: expect.any(String),
          field: 'tools_token_id',
          next_action: 'pass tools_token_id with auto_claim true',
        },
      })),
    );
  });

  it('a tools-token the caller does not own is refused whole with tools_token_not_owned', async () => {
    const { agent, tools } = await broadcaster();
    const someoneElses = await adminTools(h);
    const u = await newUser(h);
    for (const id of [someoneElses.tokenId, randomUUID()]) {
      const err = await failed(h, agent.token, 'broadcast_event', { ...args(tools), recipients: [u.email], tools_token_id: id });
      expect(err).toEqual({
        error: 'FORBIDDEN: tools_token_id is not an active tools-claim token of yours',
        error_envelope: {
          code: 'tools_token_not_owned',
          title: expect.any(String),
          detail: expect.any(String),
          field: 'tools_token_id',
          next_action: expect.stringContaining('issue_admin_tools_claim_token'),
        },
      });
    }
    expect(await sql('select id from deliveries where recipient_user_id = ?', [u.userId])).toEqual([]);
  });

  it('event fields outside the tools-token namespace, and unknown projects, are top-level error_envelopes', async () => {
    const { tools, agent } = await broadcaster();
    const claimed = await claimedEmployee(h, tools);
    const ns = await failed(h, agent.token, 'broadcast_event', {
      ...args(tools, { event_type: 'other.thing.happened' }),
      recipients: [claimed.user.email],
      tools_token_id: tools.tokenId,
    });
    expect(ns.error).toMatch(/^INVALID_INPUT: event_type: /);
    expect(ns.error_envelope).toMatchObject({ code: 'schema_invalid', field: 'event_type', next_action: 'fix the named field' });
    const proj = await failed(h, agent.token, 'broadcast_event', {
      ...args(tools),
      project_slug: 'no-such-project',
      recipients: [claimed.user.email],
      tools_token_id: tools.tokenId,
    });
    expect(proj.error_envelope).toMatchObject({ code: 'project_not_found', field: 'project_slug', next_action: expect.stringContaining('project_slug') });
    expect(await sql('select id from deliveries where recipient_user_id = ?', [claimed.user.userId])).toEqual([]);
  });

  it('admin only: a member is refused with forbidden_admin_only; needs admin:broadcast; at most 100 recipients', async () => {
    const member = await memberAgent(h, ['admin:broadcast']);
    const err = await failed(h, member.token, 'broadcast_event', { event_type: 'x.y.z', severity: 'info', title: 't', recipients: ['a@example.test'] });
    expect(err).toEqual({
      error: 'FORBIDDEN: admin only',
      error_envelope: {
        code: 'forbidden_admin_only',
        title: 'Admin only',
        detail: expect.any(String),
        field: null,
        next_action: expect.stringContaining('/api/v1/events'),
      },
    });
    const { tools, agent } = await broadcaster(['admin:catalog']);
    await expectMissingScope(h, agent.token, 'broadcast_event', { ...args(tools), recipients: ['a@example.test'] }, 'admin:broadcast');
    const wide = await broadcaster();
    const many = Array.from({ length: 101 }, (_, i) => `r${i}@example.test`);
    await expectInvalidParams(h, wide.agent.token, 'broadcast_event', { ...args(wide.tools), recipients: many }, 'recipients');
    await expectInvalidParams(h, wide.agent.token, 'broadcast_event', { ...args(wide.tools), recipients: [] }, 'recipients');
    await expectInvalidParams(h, wide.agent.token, 'broadcast_event', { ...args(wide.tools), recipients: ['a@example.test'], body: 'x' }, 'body');
  });
});
