// Token tools through POST /mcp (SPEC C write tools issue_personal_inbound_token,
// revoke_personal_token, revoke_admin_token, issue_admin_tools_claim_token; read tool
// list_inbound_tokens; "Agent token scopes"; Authentication 6: admins never see token values).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { adminTools, claimedEmployee } from '../../helpers/tools.js';
import { adminAgent, expectMissingScope, failed, FLAT_ADMIN_ONLY, memberAgent, ok, sqlOf } from './admin-fixtures.js';
import { newAgent } from './rpc.js';

let h: Harness;
let sql: ReturnType<typeof sqlOf>;
beforeAll(async () => {
  h = await startHarness();
  sql = sqlOf(h);
});
afterAll(async () => {
  await h?.close();
});

const auditOf = (tokenId: string) =>
  sql('select action, source, actor_user_id, target_type, target_id, summary from audit_log where token_id = ? order by created_at', [tokenId]);

describe('issue_personal_inbound_token', () => {
  it('mints a working personal token for the caller only; audited without the value', async () => {
    const me = await memberAgent(h, ['write:inbox']);
    const out = await ok(h, me.token, 'issue_personal_inbound_token', { label: 'my CI' });
    expect(out).toEqual({
      token_id: expect.any(String),
      token_value: expect.stringMatching(/^svc-in-pers-[A-Za-z0-9_-]{32}$/),
      endpoint_url: expect.stringMatching(/\/api\/internal-os\/integrations\/inbound\/personal$/),
    });
    const [row] = await sql('select owner_user_id, kind, label, daily_limit, status from inbound_tokens where id = ?', [out.token_id]);
    expect(row).toEqual({ owner_user_id: me.userId, kind: 'personal', label: 'my CI', daily_limit: 50, status: 'active' });
    const r = await publish(h, out.token_value, event(h));
    expect(r.status, r.text).toBe(202);
    expect(r.body.recipientUserId).toBe(me.userId);

    const audit = await auditOf(me.tokenId);
    expect(audit).toContainEqual({
      action: 'agent.tool.issue_personal_inbound_token',
      source: 'mcp',
      actor_user_id: me.userId,
      target_type: 'inbound_token',
      target_id: out.token_id,
      summary: { tool: 'issue_personal_inbound_token', token_id: out.token_id, label: 'my CI', daily_limit: 50 },
    });
    expect(JSON.stringify(await sql('select * from audit_log where actor_user_id = ?', [me.userId]))).not.toContain(out.token_value);
  });

  it('daily_limit 1-1000; a token without write:inbox gets 403 naming the scope', async () => {
    const me = await memberAgent(h, ['write:inbox']);
    expect((await ok(h, me.token, 'issue_personal_inbound_token', { label: 'x', daily_limit: 1000 })).token_id).toEqual(expect.any(String));
    const reader = await memberAgent(h, ['read:inbox']);
    await expectMissingScope(h, reader.token, 'issue_personal_inbound_token', { label: 'x' }, 'write:inbox');
  });
});

describe('revoke_personal_token', () => {
  it("revokes one of the caller's tokens (then 401), idempotently", async () => {
    const p = await newPersonalToken(h);
    const me = await newAgent(h, ['write:inbox'], p.user);
    expect(await ok(h, me.token, 'revoke_personal_token', { token_id: p.tokenId })).toEqual({ revoked: true });
    expect((await publish(h, p.token, event(h))).status).toBe(401);
    expect(await ok(h, me.token, 'revoke_personal_token', { token_id: p.tokenId })).toEqual({ revoked: true });
    const audit = await auditOf(me.tokenId);
    expect(audit.filter((a) => a.action === 'agent.tool.revoke_personal_token')).toHaveLength(2);
    // The domain row (keyed by the revoked token), on the real change only.
    expect(await sql(`select source from audit_log where action = 'inbound.token.revoked' and target_id = ?`, [p.tokenId])).toEqual([{ source: 'mcp' }]);
    expect(audit.find((a) => a.action === 'agent.tool.revoke_personal_token').summary).toEqual({ tool: 'revoke_personal_token', token_id: p.tokenId });
  });

  it("another user's token id is NOT_FOUND and stays active", async () => {
    const other = await newPersonalToken(h);
    const me = await memberAgent(h, ['write:inbox']);
    for (const id of [other.tokenId, randomUUID()]) {
      expect(await failed(h, me.token, 'revoke_personal_token', { token_id: id })).toEqual({ error: 'NOT_FOUND: token not found' });
    }
    expect((await sql('select status from inbound_tokens where id = ?', [other.tokenId]))[0].status).toBe('active');
    expect(await auditOf(me.tokenId)).toEqual([]);
    await expectMissingScope(h, (await memberAgent(h, ['read:*'])).token, 'revoke_personal_token', { token_id: other.tokenId }, 'write:inbox');
  });
});

describe('revoke_admin_token', () => {
  it("an admin revokes anyone's token; the owner is notified and both audit rows are written", async () => {
    const p = await newPersonalToken(h);
    const admin = await adminAgent(h, ['admin:tokens']);
    expect(await ok(h, admin.token, 'revoke_admin_token', { token_id: p.tokenId, reason: 'leaked in a ticket' })).toEqual({ revoked: true });
    expect((await publish(h, p.token, event(h))).status).toBe(401);
    const [n] = await sql('select title, summary, actor_user_id from notifications where user_id = ?', [p.user.userId]);
    expect(n).toEqual({ title: 'Your token "test" was revoked by an admin', summary: 'Reason: leaked in a ticket', actor_user_id: admin.userId });
    const actions = (await sql('select action, source from audit_log where request_id is not null and actor_user_id = ?', [admin.userId])).map(
      (a) => `${a.source}:${a.action}`,
    );
    expect(actions).toEqual(expect.arrayContaining(['mcp:inbound.token.revoked_by_admin', 'mcp:agent.tool.revoke_admin_token']));
    // Idempotent: a repeat answers the same and notifies no one again.
    expect(await ok(h, admin.token, 'revoke_admin_token', { token_id: p.tokenId })).toEqual({ revoked: true });
    expect(await sql('select id from notifications where user_id = ?', [p.user.userId])).toHaveLength(1);
  });

  it('admin:catalog satisfies admin:tokens; a non-admin user is refused; an unknown id is NOT_FOUND', async () => {
    const p = await newPersonalToken(h);
    const member = await memberAgent(h, ['admin:tokens']);
    expect(await failed(h, member.token, 'revoke_admin_token', { token_id: p.tokenId })).toEqual(FLAT_ADMIN_ONLY);
    expect((await sql('select status from inbound_tokens where id = ?', [p.tokenId]))[0].status).toBe('active');
    const catalogAdmin = await adminAgent(h, ['admin:catalog']);
    expect(await failed(h, catalogAdmin.token, 'revoke_admin_token', { token_id: randomUUID() })).toEqual({ error: 'NOT_FOUND: token not found' });
    expect(await ok(h, catalogAdmin.token, 'revoke_admin_token', { token_id: p.tokenId })).toEqual({ revoked: true });
    await expectMissingScope(h, (await adminAgent(h, ['admin:approvals'])).token, 'revoke_admin_token', { token_id: p.tokenId }, 'admin:tokens');
  });
});

describe('issue_admin_tools_claim_token', () => {
  it('creates a tools-token owned by the caller, a unique integrator from the label and its catalog row', async () => {
    const admin = await adminAgent(h, ['admin:tokens']);
    const out = await ok(h, admin.token, 'issue_admin_tools_claim_token', {
      label: 'Billing Alerts (EU)',
      source_note: 'ticket OPS-12',
      catalog_display_name: 'Billing alerts',
    });
    expect(out).toEqual({
      token_id: expect.any(String),
      token_value: expect.stringMatching(/^svc-tools-[A-Za-z0-9_-]{32}$/),
      catalog_row_id: expect.any(String),
      catalog_slug: 'billing-alerts-eu.inbound-token',
      daily_limit: 1000,
      endpoint_url: expect.stringMatching(/\/api\/v1\/tokens\/claim$/),
      integrator_slug: 'billing-alerts-eu',
      allowed_event_prefix: 'billing-alerts-eu.',
    });
    const [t] = await sql('select kind, owner_user_id, label, note, daily_limit from inbound_tokens where id = ?', [out.token_id]);
    expect(t).toEqual({ kind: 'tools_claim', owner_user_id: admin.userId, label: 'Billing Alerts (EU)', note: 'ticket OPS-12', daily_limit: 1000 });
    const [c] = await sql('select name, linked_tools_token_id, contact_user_id from catalog_items where id = ?', [out.catalog_row_id]);
    expect(c).toEqual({ name: 'Billing alerts', linked_tools_token_id: out.token_id, contact_user_id: admin.userId });
    // The token works (tools-token ping) and is shown once: only its hash is stored.
    const ping = await http(h, 'POST', '/api/internal-os/integrations/claim/ping', { token: out.token_value });
    expect(ping.status, ping.text).toBe(200);
    expect(ping.body).toMatchObject({ ok: true, tools_token_id: out.token_id, owner: admin.email });
    const dump =
      JSON.stringify(await sql('select * from inbound_tokens where id = ?', [out.token_id])) +
      JSON.stringify(await sql('select * from audit_log where actor_user_id = ?', [admin.userId]));
    expect(dump).not.toContain(out.token_value);
    expect(await auditOf(admin.tokenId)).toContainEqual({
      action: 'inbound.token.created',
      source: 'mcp',
      actor_user_id: admin.userId,
      target_type: 'inbound_token',
      target_id: out.token_id,
      summary: { kind: 'tools_claim', integrator: 'billing-alerts-eu', tool: 'issue_admin_tools_claim_token', label: 'Billing Alerts (EU)' },
    });

    // The same label again: another integrator, made unique.
    const again = await ok(h, admin.token, 'issue_admin_tools_claim_token', { label: 'Billing Alerts (EU)' });
    expect(again).toMatchObject({ integrator_slug: 'billing-alerts-eu-2', catalog_slug: 'billing-alerts-eu-2.inbound-token' });
  });

  it('non-admin users are refused; the scope is admin:tokens (admin:catalog also satisfies it)', async () => {
    const member = await memberAgent(h, ['admin:tokens']);
    expect(await failed(h, member.token, 'issue_admin_tools_claim_token', { label: 'sneaky' })).toEqual(FLAT_ADMIN_ONLY);
    expect(await sql(`select id from integrators where slug = 'sneaky'`)).toEqual([]);
    await expectMissingScope(h, (await adminAgent(h, ['admin:broadcast'])).token, 'issue_admin_tools_claim_token', { label: 'x' }, 'admin:tokens');
    expect((await ok(h, (await adminAgent(h, ['admin:catalog'])).token, 'issue_admin_tools_claim_token', { label: '¡Ünïcode!' })).integrator_slug).toBe(
      'unicode',
    );
  });
});

describe('list_inbound_tokens', () => {
  it('lists tokens with owner and linked catalog slug, never values or hashes', async () => {
    const tools = await adminTools(h);
    const claimed = await claimedEmployee(h, tools);
    const personal = await newPersonalToken(h);
    const admin = await adminAgent(h, ['admin:catalog']);
    const body = await ok(h, admin.token, 'list_inbound_tokens', { limit: 500 });
    const byId = new Map(body.items.map((i: any) => [i.id, i]));
    expect(byId.get(tools.tokenId)).toEqual({
      id: tools.tokenId,
      label: `tools ${tools.integratorSlug}`,
      kind: 'tools_claim',
      status: 'active',
      owner_email: tools.admin.email,
      created_at: expect.any(String),
      revoked_at: null,
      linked_catalog_slug: tools.catalogSlug,
    });
    expect(byId.get(claimed.tokenId)).toMatchObject({ kind: 'personal', owner_email: claimed.user.email, linked_catalog_slug: tools.catalogSlug });
    expect(byId.get(personal.tokenId)).toMatchObject({ kind: 'personal', linked_catalog_slug: null });
    const text = JSON.stringify(body);
    for (const secret of [tools.token, claimed.token, personal.token]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/hash|secret/i);

    const onlyTools = await ok(h, admin.token, 'list_inbound_tokens', { kind: 'tools_claim', limit: 500 });
    expect(onlyTools.items.every((i: any) => i.kind === 'tools_claim')).toBe(true);
    expect(onlyTools.items.map((i: any) => i.id)).toContain(tools.tokenId);
  });

  it('hides revoked tokens unless include_revoked', async () => {
    const p = await newPersonalToken(h);
    await sql(`update inbound_tokens set status = 'revoked', revoked_at = now() where id = ?`, [p.tokenId]);
    const admin = await adminAgent(h, ['admin:catalog']);
    expect((await ok(h, admin.token, 'list_inbound_tokens', { limit: 500 })).items.map((i: any) => i.id)).not.toContain(p.tokenId);
    const all = await ok(h, admin.token, 'list_inbound_tokens', { include_revoked: true, limit: 500 });
    expect(all.items.find((i: any) => i.id === p.tokenId)).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
  });

  it('non-admin users are refused; admin:tokens does not satisfy admin:catalog', async () => {
    expect(await failed(h, (await memberAgent(h, ['admin:catalog'])).token, 'list_inbound_tokens')).toEqual(FLAT_ADMIN_ONLY);
    await expectMissingScope(h, (await adminAgent(h, ['admin:tokens', 'admin:approvals', 'admin:users'])).token, 'list_inbound_tokens', {}, 'admin:catalog');
    expect((await ok(h, (await adminAgent(h, ['admin:*'])).token, 'list_inbound_tokens')).items.length).toBeGreaterThan(0);
  });
});
