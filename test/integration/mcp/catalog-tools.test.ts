// Catalog and approval tools through POST /mcp (SPEC C assign_catalog_to_employee,
// revoke_catalog_approval, approve_team_support_request, list_approvals_for_user, the tools named
// without shape; "Catalog approval status" agent-side statuses and idempotent reuse; Versioning 4
// `asset_id` alias; structured errors of the email-lookup admin tools).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, newUser, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { adminTools, claimedEmployee, pendingRequest, tag } from '../../helpers/tools.js';
import {
  adminAgent,
  expectInvalidParams,
  expectMissingScope,
  failed,
  FLAT_ADMIN_ONLY,
  memberAgent,
  ok,
  sqlOf,
  STRUCTURED_ADMIN_ONLY,
} from './admin-fixtures.js';

let h: Harness;
let sql: ReturnType<typeof sqlOf>;
beforeAll(async () => {
  h = await startHarness();
  sql = sqlOf(h);
});
afterAll(async () => {
  await h?.close();
});

const notificationsOf = (userId: string) =>
  sql('select title, summary, target_url, actor_user_id from notifications where user_id = ? order by created_at', [userId]);

describe('assign_catalog_to_employee', () => {
  it('approves by slug or id; a repeat reuses the row (idempotent)', async () => {
    const tools = await adminTools(h);
    const admin = await adminAgent(h, ['admin:approvals']);
    const u = await newUser(h);
    const first = await ok(h, admin.token, 'assign_catalog_to_employee', { catalog_slug: tools.catalogSlug, email: u.email, note: 'onboarding' });
    expect(first).toEqual({ approval_id: expect.any(String), status: 'approved', idempotent: false });
    const [req] = await sql('select status, note, reviewed_by_user_id, created_by_user_id from catalog_requests where id = ?', [first.approval_id]);
    expect(req).toEqual({ status: 'approved', note: 'onboarding', reviewed_by_user_id: admin.userId, created_by_user_id: admin.userId });
    expect(await sql(`select id from access_assets where request_id = ? and status = 'active'`, [first.approval_id])).toHaveLength(1);
    const again = await ok(h, admin.token, 'assign_catalog_to_employee', { catalog_id: tools.catalogRowId, email: u.email });
    expect(again).toEqual({ approval_id: first.approval_id, status: 'approved', idempotent: true });
    expect(await sql('select id from catalog_requests where user_id = ?', [u.userId])).toHaveLength(1);
    const [audit] = await sql('select action, source, target_id, summary from audit_log where token_id = ? order by created_at', [admin.tokenId]);
    expect(audit).toEqual({
      action: 'catalog.approval.assigned',
      source: 'mcp',
      target_id: first.approval_id,
      summary: {
        tool: 'assign_catalog_to_employee',
        catalog_item_id: tools.catalogRowId,
        catalog_slug: tools.catalogSlug,
        user_id: u.userId,
        status: 'approved',
        idempotent: false,
      },
    });
  });

  it('reuses a pending, in_execution or completed row as it is (idempotent true)', async () => {
    const tools = await adminTools(h);
    const admin = await adminAgent(h, ['admin:approvals']);
    const pendingUser = await newUser(h);
    const requestId = await pendingRequest(h, pendingUser.email, tools.catalogSlug);
    expect(await ok(h, admin.token, 'assign_catalog_to_employee', { catalog_slug: tools.catalogSlug, email: pendingUser.email })).toEqual({
      approval_id: requestId,
      status: 'pending',
      idempotent: true,
    });
    for (const status of ['in_execution', 'completed']) {
      const u = await newUser(h);
      const a = await ok(h, admin.token, 'assign_catalog_to_employee', { catalog_slug: tools.catalogSlug, email: u.email });
      await sql('update catalog_requests set status = ? where id = ?', [status, a.approval_id]);
      expect(await ok(h, admin.token, 'assign_catalog_to_employee', { catalog_slug: tools.catalogSlug, email: u.email })).toEqual({
        approval_id: a.approval_id,
        status,
        idempotent: true,
      });
    }
  });

  it('structured errors: unknown email is 422 user-not-found; unknown row not_found; non-admin forbidden', async () => {
    const tools = await adminTools(h);
    const admin = await adminAgent(h, ['admin:approvals']);
    const ghost = `ghost-${randomUUID()}@example.test`;
    const err = await failed(h, admin.token, 'assign_catalog_to_employee', { catalog_slug: tools.catalogSlug, email: ghost });
    expect(err).toEqual({
      error: { type: expect.stringMatching(/\/user-not-found$/), title: 'user_not_found', detail: `no user with email ${ghost}`, email: ghost },
    });
    expect(await failed(h, admin.token, 'assign_catalog_to_employee', { catalog_slug: 'no.such-row', email: ghost })).toEqual({
      error: { type: 'not_found', title: 'not found', detail: 'catalog item "no.such-row" not found' },
    });
    expect(await failed(h, admin.token, 'assign_catalog_to_employee', { catalog_id: randomUUID(), email: ghost })).toMatchObject({
      error: { type: 'not_found' },
    });
    const u = await newUser(h);
    const member = await memberAgent(h, ['admin:approvals']);
    expect(await failed(h, member.token, 'assign_catalog_to_employee', { catalog_slug: tools.catalogSlug, email: u.email })).toEqual(STRUCTURED_ADMIN_ONLY);
    expect(await sql('select id from catalog_requests where user_id = ?', [u.userId])).toEqual([]);
  });

  it('exactly one of catalog_slug and catalog_id; scope admin:approvals (admin:catalog satisfies it)', async () => {
    const tools = await adminTools(h);
    const u = await newUser(h);
    const admin = await adminAgent(h, ['admin:catalog']);
    await expectInvalidParams(h, admin.token, 'assign_catalog_to_employee', { email: u.email }, 'catalog_slug');
    await expectInvalidParams(
      h,
      admin.token,
      'assign_catalog_to_employee',
      { catalog_slug: tools.catalogSlug, catalog_id: tools.catalogRowId, email: u.email },
      'catalog_id',
    );
    expect((await ok(h, admin.token, 'assign_catalog_to_employee', { catalog_slug: tools.catalogSlug, email: u.email })).status).toBe('approved');
    await expectMissingScope(
      h,
      (await adminAgent(h, ['admin:tokens'])).token,
      'assign_catalog_to_employee',
      { catalog_slug: tools.catalogSlug, email: u.email },
      'admin:approvals',
    );
  });
});

describe('revoke_catalog_approval', () => {
  it('a real change revokes, invalidates claimed tokens and notifies (lock mark, catalog name, assets link); a repeat never notifies', async () => {
    const tools = await adminTools(h);
    const claimed = await claimedEmployee(h, tools);
    const admin = await adminAgent(h, ['admin:approvals']);
    const out = await ok(h, admin.token, 'revoke_catalog_approval', { catalog_slug: tools.catalogSlug, email: claimed.user.email });
    expect(out).toEqual({ revoked: true, tokens_invalidated: 1, addressedBy: 'slug+email', approval_id: claimed.user.approvalId });
    expect((await publish(h, claimed.token, event(h, { event_type: `${tools.prefix}x.y` }))).status).toBe(401);
    const [catalog] = await sql('select name from catalog_items where id = ?', [tools.catalogRowId]);
    const notes = await notificationsOf(claimed.user.userId);
    expect(notes).toHaveLength(1);
    expect(notes[0].title.startsWith(`🔒 ${catalog.name}`)).toBe(true);
    expect(notes[0].target_url).toMatch(/\/team-support\?tab=assets$/);
    expect(notes[0].actor_user_id).toBe(admin.userId);
    expect(JSON.stringify(notes)).not.toContain(claimed.token);

    const again = await ok(h, admin.token, 'revoke_catalog_approval', { catalog_slug: tools.catalogSlug, email: claimed.user.email });
    expect(again).toEqual({ revoked: false, tokens_invalidated: 0, addressedBy: 'slug+email', approval_id: null });
    const byId = await ok(h, admin.token, 'revoke_catalog_approval', { approval_id: claimed.user.approvalId });
    expect(byId).toEqual({ revoked: false, tokens_invalidated: 0, addressedBy: 'approval_id', approval_id: claimed.user.approvalId });
    expect(await notificationsOf(claimed.user.userId)).toHaveLength(1);
    const audits = await sql(`select summary from audit_log where token_id = ? and action = 'catalog.approval.revoked' order by created_at`, [admin.tokenId]);
    expect(audits.map((a) => a.summary.revoked)).toEqual([true, false, false]);
    expect(audits[0].summary).toMatchObject({ tool: 'revoke_catalog_approval', addressed_by: 'slug+email', tokens_invalidated: 1, notify_employee: true });
  });

  it('by approval_id; notify_employee false stays silent; rows without a tools-token invalidate no tokens', async () => {
    const admin = await adminAgent(h, ['admin:approvals', 'admin:catalog']);
    const slug = `plain.${tag()}`;
    await ok(h, admin.token, 'catalog_item_create', { slug, name: 'Design tool seat', type: 'saas_account' });
    const u = await newUser(h);
    const a = await ok(h, admin.token, 'assign_catalog_to_employee', { catalog_slug: slug, email: u.email });
    expect(await ok(h, admin.token, 'revoke_catalog_approval', { approval_id: a.approval_id, notify_employee: false })).toEqual({
      revoked: true,
      tokens_invalidated: 0,
      addressedBy: 'approval_id',
      approval_id: a.approval_id,
    });
    expect(await notificationsOf(u.userId)).toEqual([]);
    expect((await sql('select status from catalog_requests where id = ?', [a.approval_id]))[0].status).toBe('revoked');
  });

  it('addressing is exactly one form; unknown ids NOT_FOUND; unknown email 422; non-admin forbidden; scope admin:approvals', async () => {
    const tools = await adminTools(h);
    const claimed = await claimedEmployee(h, tools);
    const admin = await adminAgent(h, ['admin:approvals']);
    await expectInvalidParams(h, admin.token, 'revoke_catalog_approval', {}, 'approval_id');
    await expectInvalidParams(h, admin.token, 'revoke_catalog_approval', { catalog_slug: tools.catalogSlug }, 'email');
    await expectInvalidParams(
      h,
      admin.token,
      'revoke_catalog_approval',
      { catalog_slug: tools.catalogSlug, email: claimed.user.email, approval_id: claimed.user.approvalId },
      'approval_id',
    );
    expect(await failed(h, admin.token, 'revoke_catalog_approval', { approval_id: randomUUID() })).toEqual({
      error: { type: 'not_found', title: 'not found', detail: 'approval not found' },
    });
    const ghost = `ghost-${randomUUID()}@example.test`;
    expect(await failed(h, admin.token, 'revoke_catalog_approval', { catalog_slug: tools.catalogSlug, email: ghost })).toMatchObject({
      error: { type: expect.stringMatching(/\/user-not-found$/), email: ghost },
    });
    const member = await memberAgent(h, ['admin:approvals']);
    expect(await failed(h, member.token, 'revoke_catalog_approval', { approval_id: claimed.user.approvalId })).toEqual(STRUCTURED_ADMIN_ONLY);
    await expectMissingScope(
      h,
      (await adminAgent(h, ['admin:users'])).token,
      'revoke_catalog_approval',
      { approval_id: claimed.user.approvalId },
      'admin:approvals',
    );
    expect((await sql('select status from catalog_requests where id = ?', [claimed.user.approvalId]))[0].status).toBe('approved');
  });
});

describe('approve_team_support_request', () => {
  it('approves a pending request: access_asset_id and its deprecated alias asset_id', async () => {
    const tools = await adminTools(h);
    const u = await newUser(h);
    const requestId = await pendingRequest(h, u.email, tools.catalogSlug);
    const admin = await adminAgent(h, ['admin:approvals']);
    const out = await ok(h, admin.token, 'approve_team_support_request', { request_id: requestId });
    expect(out).toEqual({ request_id: requestId, status: 'approved', access_asset_id: expect.any(String), asset_id: out.access_asset_id });
    const [asset] = await sql('select user_id, request_id, status from access_assets where id = ?', [out.access_asset_id]);
    expect(asset).toEqual({ user_id: u.userId, request_id: requestId, status: 'active' });
    expect(await failed(h, admin.token, 'approve_team_support_request', { request_id: requestId })).toEqual({
      error: 'CONFLICT: request was already reviewed: approved',
    });
    expect(await failed(h, admin.token, 'approve_team_support_request', { request_id: randomUUID() })).toEqual({ error: 'NOT_FOUND: request not found' });
  });

  it('non-admin users are refused and nothing changes; scope admin:approvals', async () => {
    const tools = await adminTools(h);
    const u = await newUser(h);
    const requestId = await pendingRequest(h, u.email, tools.catalogSlug);
    expect(await failed(h, (await memberAgent(h, ['admin:approvals'])).token, 'approve_team_support_request', { request_id: requestId })).toEqual(
      FLAT_ADMIN_ONLY,
    );
    expect((await sql('select status from catalog_requests where id = ?', [requestId]))[0].status).toBe('pending');
    await expectMissingScope(h, (await adminAgent(h, ['admin:broadcast'])).token, 'approve_team_support_request', { request_id: requestId }, 'admin:approvals');
  });
});

describe('create_team_support_request_on_behalf and list_pending_team_support_requests', () => {
  it('files a pending request for another user (idempotent), shown in the review queue', async () => {
    const tools = await adminTools(h);
    const u = await newUser(h);
    const admin = await adminAgent(h, ['admin:on_behalf_of', 'admin:approvals']);
    const filed = await ok(h, admin.token, 'create_team_support_request_on_behalf', { catalog_slug: tools.catalogSlug, email: u.email, note: 'asked in chat' });
    expect(filed).toEqual({ request_id: expect.any(String), status: 'pending', idempotent: false });
    expect(await ok(h, admin.token, 'create_team_support_request_on_behalf', { catalog_id: tools.catalogRowId, email: u.email })).toEqual({
      request_id: filed.request_id,
      status: 'pending',
      idempotent: true,
    });
    const queue = await ok(h, admin.token, 'list_pending_team_support_requests', { catalog_slug: tools.catalogSlug });
    expect(queue.items).toEqual([
      {
        request_id: filed.request_id,
        catalog_slug: tools.catalogSlug,
        catalog_name: expect.any(String),
        user_id: u.userId,
        email: u.email,
        name: 'Test User',
        note: 'asked in chat',
        requested_at: expect.any(String),
        filed_by_email: admin.email,
      },
    ]);
    expect((await ok(h, admin.token, 'list_pending_team_support_requests', { email: u.email })).items.map((i: any) => i.request_id)).toEqual([
      filed.request_id,
    ]);
    await ok(h, admin.token, 'approve_team_support_request', { request_id: filed.request_id });
    expect((await ok(h, admin.token, 'list_pending_team_support_requests', { catalog_id: tools.catalogRowId })).items).toEqual([]);
  });

  it('on_behalf needs admin:on_behalf_of (admin:catalog does not cover it) and an admin user', async () => {
    const tools = await adminTools(h);
    const u = await newUser(h);
    await expectMissingScope(
      h,
      (await adminAgent(h, ['admin:catalog', 'admin:approvals'])).token,
      'create_team_support_request_on_behalf',
      { catalog_slug: tools.catalogSlug, email: u.email },
      'admin:on_behalf_of',
    );
    expect(
      await failed(h, (await memberAgent(h, ['admin:on_behalf_of'])).token, 'create_team_support_request_on_behalf', {
        catalog_slug: tools.catalogSlug,
        email: u.email,
      }),
    ).toEqual(STRUCTURED_ADMIN_ONLY);
    expect(await failed(h, (await memberAgent(h, ['admin:approvals'])).token, 'list_pending_team_support_requests')).toEqual(STRUCTURED_ADMIN_ONLY);
    await expectMissingScope(h, (await adminAgent(h, ['admin:on_behalf_of'])).token, 'list_pending_team_support_requests', {}, 'admin:approvals');
  });
});

describe('list_approvals_for_user', () => {
  it('filters approved (default), revoked, pending, all with agent-side statuses', async () => {
    const toolsA = await adminTools(h);
    const toolsB = await adminTools(h);
    const toolsC = await adminTools(h);
    const u = await newUser(h);
    const admin = await adminAgent(h, ['admin:approvals']);
    const a = await ok(h, admin.token, 'assign_catalog_to_employee', { catalog_slug: toolsA.catalogSlug, email: u.email });
    const b = await ok(h, admin.token, 'assign_catalog_to_employee', { catalog_slug: toolsB.catalogSlug, email: u.email });
    await sql(`update catalog_requests set status = 'in_execution' where id = ?`, [b.approval_id]);
    const p = await pendingRequest(h, u.email, toolsC.catalogSlug);
    const approved = await ok(h, admin.token, 'list_approvals_for_user', { email: u.email });
    expect(approved.items.map((i: any) => [i.approval_id, i.status]).sort()).toEqual(
      [
        [a.approval_id, 'approved'],
        [b.approval_id, 'in_execution'],
      ].sort(),
    );
    expect(approved.items.find((i: any) => i.approval_id === a.approval_id)).toEqual({
      approval_id: a.approval_id,
      catalog_slug: toolsA.catalogSlug,
      catalog_name: expect.any(String),
      status: 'approved',
      created_at: expect.any(String),
      decided_at: expect.any(String),
      decided_by: admin.email,
    });
    expect((await ok(h, admin.token, 'list_approvals_for_user', { email: u.email, status: 'pending' })).items).toEqual([
      expect.objectContaining({ approval_id: p, status: 'pending', decided_at: null, decided_by: null }),
    ]);
    await ok(h, admin.token, 'revoke_catalog_approval', { approval_id: a.approval_id });
    await sql(`update catalog_requests set status = 'withdrawn' where id = ?`, [b.approval_id]);
    const revoked = await ok(h, admin.token, 'list_approvals_for_user', { email: u.email, status: 'revoked' });
    expect(revoked.items.map((i: any) => i.status).sort()).toEqual(['revoked', 'withdrawn']);
    expect((await ok(h, admin.token, 'list_approvals_for_user', { email: u.email, status: 'all' })).items).toHaveLength(3);
    expect((await ok(h, admin.token, 'list_approvals_for_user', { email: u.email })).items).toEqual([]);
  });

  it('structured 422 for an unknown email; non-admin forbidden; scope admin:approvals', async () => {
    const admin = await adminAgent(h, ['admin:approvals']);
    const ghost = `ghost-${randomUUID()}@example.test`;
    expect(await failed(h, admin.token, 'list_approvals_for_user', { email: ghost })).toEqual({
      error: { type: expect.stringMatching(/\/user-not-found$/), title: 'user_not_found', detail: `no user with email ${ghost}`, email: ghost },
    });
    const u = await newUser(h);
    expect(await failed(h, (await memberAgent(h, ['admin:approvals'])).token, 'list_approvals_for_user', { email: u.email })).toEqual(STRUCTURED_ADMIN_ONLY);
    await expectMissingScope(h, (await memberAgent(h, ['read:*'])).token, 'list_approvals_for_user', { email: u.email }, 'admin:approvals');
    await expectInvalidParams(h, admin.token, 'list_approvals_for_user', { email: u.email, status: 'rejected' }, 'status');
  });
});

describe('catalog_item_create / list / update / delete', () => {
  it('create, list, update by slug or id, soft delete twice, then hard delete', async () => {
    const admin = await adminAgent(h, ['admin:catalog']);
    const slug = `design.${tag()}`;
    const created = await ok(h, admin.token, 'catalog_item_create', {
      slug,
      name: 'Figma seat',
      type: 'saas_account',
      category: 'dev-environment',
      approval_required: false,
    });
    expect(created).toEqual({
      ok: true,
      item: expect.objectContaining({
        slug,
        name: 'Figma seat',
        type: 'saas_account',
        categoryDisplay: 'Development environment',
        approval_required: false,
        is_pinned: false,
        archived_at: null,
      }),
    });
    expect(created.item.requestId).toBeUndefined();
    expect(await failed(h, admin.token, 'catalog_item_create', { slug, name: 'again', type: 'other' })).toEqual({
      error: expect.stringMatching(/^CONFLICT: catalog slug ".*" is already taken/),
    });

    const list = await ok(h, admin.token, 'catalog_item_list', { category: 'dev-environment', limit: 200 });
    expect(list.items.map((i: any) => i.id)).toContain(created.item.id);
    expect(list.totalCount).toBeGreaterThanOrEqual(1);

    const bySlug = await ok(h, admin.token, 'catalog_item_update', { slug, name: 'Figma editor seat', display_order: 3 });
    expect(bySlug.item).toMatchObject({ id: created.item.id, name: 'Figma editor seat', display_order: 3 });
    const byId = await ok(h, admin.token, 'catalog_item_update', { id: created.item.id, is_pinned: true });
    expect(byId.item).toMatchObject({ slug, is_pinned: true, name: 'Figma editor seat' });
    await expectInvalidParams(h, admin.token, 'catalog_item_update', { slug, type: 'other' }, 'type');
    await expectInvalidParams(h, admin.token, 'catalog_item_update', { slug, id: created.item.id, name: 'x' }, 'id');
    await expectInvalidParams(h, admin.token, 'catalog_item_update', { name: 'x' }, 'slug');

    const soft = await ok(h, admin.token, 'catalog_item_delete', { slug });
    expect(soft).toMatchObject({ ok: true, mode: 'soft', slug, already_archived: false, item: { archived_at: expect.any(String) } });
    expect(await ok(h, admin.token, 'catalog_item_delete', { id: created.item.id })).toMatchObject({ mode: 'soft', already_archived: true });
    expect(await failed(h, admin.token, 'catalog_item_update', { slug, name: 'x' })).toEqual({ error: `NOT_FOUND: catalog item "${slug}" not found` });
    expect((await ok(h, admin.token, 'catalog_item_list', { category: 'dev-environment', limit: 200 })).items.map((i: any) => i.id)).not.toContain(
      created.item.id,
    );
    expect(
      (await ok(h, admin.token, 'catalog_item_list', { category: 'dev-environment', active_only: false, limit: 200 })).items.map((i: any) => i.id),
    ).toContain(created.item.id);
    expect(await ok(h, admin.token, 'catalog_item_delete', { slug, hard: true })).toEqual({
      ok: true,
      mode: 'hard',
      slug,
      item: null,
      already_archived: false,
    });
    expect(await failed(h, admin.token, 'catalog_item_delete', { slug })).toEqual({ error: `NOT_FOUND: catalog item "${slug}" not found` });

    const audit = await sql('select action, source, summary from audit_log where token_id = ? order by created_at', [admin.tokenId]);
    expect(audit.map((a) => a.action)).toEqual([
      'catalog.item.created',
      'catalog.item.updated',
      'catalog.item.updated',
      'catalog.item.archived',
      'catalog.item.deleted',
    ]);
    expect(audit.every((a) => a.source === 'mcp')).toBe(true);
    expect(audit.map((a) => a.summary.tool)).toEqual([
      'catalog_item_create',
      'catalog_item_update',
      'catalog_item_update',
      'catalog_item_delete',
      'catalog_item_delete',
    ]);
  });

  it('a hard delete with live dependents is a CONFLICT naming the counts', async () => {
    const tools = await adminTools(h);
    await claimedEmployee(h, tools);
    const admin = await adminAgent(h, ['admin:catalog']);
    const err = await failed(h, admin.token, 'catalog_item_delete', { id: tools.catalogRowId, hard: true });
    expect(err.error).toMatch(/^CONFLICT: .*\(liveApprovals 1, liveAssets 1, liveTokens 2\)$/);
    expect(await sql('select id from catalog_items where id = ?', [tools.catalogRowId])).toHaveLength(1);
  });

  it('non-admin users are refused; scope admin:catalog (admin:approvals does not cover it)', async () => {
    const member = await memberAgent(h, ['admin:catalog']);
    const slug = `x.${tag()}`;
    expect(await failed(h, member.token, 'catalog_item_create', { slug, name: 'x', type: 'other' })).toEqual(FLAT_ADMIN_ONLY);
    expect(await failed(h, member.token, 'catalog_item_list')).toEqual(FLAT_ADMIN_ONLY);
    expect(await sql('select id from catalog_items where slug = ?', [slug])).toEqual([]);
    const approvals = await adminAgent(h, ['admin:approvals']);
    for (const [name, args] of [
      ['catalog_item_create', { slug, name: 'x', type: 'other' }],
      ['catalog_item_list', {}],
      ['catalog_item_update', { slug, name: 'y' }],
      ['catalog_item_delete', { slug }],
    ] as const) {
      await expectMissingScope(h, approvals.token, name, args, 'admin:catalog');
    }
  });
});
