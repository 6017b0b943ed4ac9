// /api/v1/catalog/approvals: assign, list, revoke, review (SPEC "Catalog approval", "Catalog
// approval status", Errors 422 user-not-found, Authentication 7). The review path is the
// implementation's documented choice: POST /api/v1/catalog/approvals/review.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogApprovalListItemSchema } from '../../../src/domain/catalog/catalog-approvals.schemas.js';
import { event, http, newPersonalToken, newUser, publish, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';
import {
  adminTools,
  approvedEmployee,
  assign,
  claim,
  claimedEmployee,
  expectProblem,
  fieldCodes,
  nonAdminTools,
  pendingRequest,
  sql,
  type ToolsFixture,
} from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const list = (token: string, query = '') => http(h, 'GET', `/api/v1/catalog/approvals${query ? `?${query}` : ''}`, { token });
const revoke = (token: string, body: unknown) => http(h, 'DELETE', '/api/v1/catalog/approvals', { token, body });
const review = (token: string, body: unknown) => http(h, 'POST', '/api/v1/catalog/approvals/review', { token, body });
const ev = (tools: ToolsFixture) => event(h, { event_type: `${tools.prefix}ticket.opened` });
const notificationsOf = (userId: string) => sql(h, `select title, summary, target_url from notifications where user_id = ? order by created_at`, [userId]);
const catalogName = async (tools: ToolsFixture) => (await sql(h, `select name from catalog_items where id = ?`, [tools.catalogRowId]))[0].name as string;

describe('POST /api/v1/catalog/approvals (admin assign)', () => {
  it('creates an approved request and an access asset (201 CatalogApprovalListItem)', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const r = await assign(h, tools, emp.email);
    expect(r.status, r.text).toBe(201);
    const item = CatalogApprovalListItemSchema.parse(r.body);
    expect(item).toMatchObject({ email: emp.email, catalogSlug: tools.catalogSlug, status: 'approved', reviewedByEmail: tools.admin.email });
    expect(item.reviewedAt).not.toBeNull();
    const assets = await sql(h, `select user_id, catalog_item_id, status from access_assets where request_id = ?`, [item.id]);
    expect(assets).toEqual([{ user_id: emp.userId, catalog_item_id: tools.catalogRowId, status: 'active' }]);
    // The employee can now be claimed for.
    expect((await claim(h, tools.token, { email: emp.email })).status).toBe(200);
  });

  it('assigning twice returns the same request (idempotent), one request row and one asset', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const a = await assign(h, tools, emp.email);
    const b = await assign(h, tools, emp.email.toUpperCase());
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).toBe(a.body.id);
    expect(b.body.status).toBe('approved');
    expect(await sql(h, `select id from catalog_requests where user_id = ?`, [emp.userId])).toHaveLength(1);
    expect(await sql(h, `select id from access_assets where user_id = ?`, [emp.userId])).toHaveLength(1);
  });

  it('10 concurrent assigns end with one request row', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const rs = await Promise.all(Array.from({ length: 10 }, () => assign(h, tools, emp.email)));
    expect(rs.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(rs.map((r) => r.body.id)).size).toBe(1);
    expect(await sql(h, `select id from catalog_requests where user_id = ?`, [emp.userId])).toHaveLength(1);
    expect(await sql(h, `select id from access_assets where user_id = ?`, [emp.userId])).toHaveLength(1);
  });

  it("assign approves the employee's pending application instead of adding a row", async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const requestId = await pendingRequest(h, emp.email, tools.catalogSlug);
    const r = await assign(h, tools, emp.email);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: requestId, status: 'approved', reviewedByEmail: tools.admin.email });
    expect(await sql(h, `select id from access_assets where request_id = ?`, [requestId])).toHaveLength(1);
  });

  it('any admin tools-token may assign for any catalog row', async () => {
    const a = await adminTools(h);
    const b = await adminTools(h);
    const emp = await newUser(h);
    const r = await http(h, 'POST', '/api/v1/catalog/approvals', { token: b.token, body: { email: emp.email, catalog_slug: a.catalogSlug } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ catalogSlug: a.catalogSlug, reviewedByEmail: b.admin.email });
    expect((await claim(h, a.token, { email: emp.email })).status).toBe(200);
  });

  it('unknown or archived catalog slug gives 404; unknown email gives 422 user-not-found; bad bodies give 400', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const post = (body: unknown) => http(h, 'POST', '/api/v1/catalog/approvals', { token: tools.token, body });
    expectProblem(await post({ email: emp.email, catalog_slug: `nope-${randomUUID()}.x` }), 404);
    const archived = await adminTools(h);
    await sql(h, `update catalog_items set archived_at = now() where id = ?`, [archived.catalogRowId]);
    expectProblem(await post({ email: emp.email, catalog_slug: archived.catalogSlug }), 404);

    const ghost = uniqueEmail('ghost');
    const r = await post({ email: ghost, catalog_slug: tools.catalogSlug });
    expectProblem(r, 422, 'user_not_found', 'user-not-found');
    expect(r.body.email).toBe(ghost);

    const bad = await post({ email: 'nope', catalog_slug: '' });
    expectProblem(bad, 400, 'schema_invalid', 'validation-failed');
    expect(Object.keys(bad.body.fieldErrors).sort()).toEqual(['catalog_slug', 'email']);
    expect(fieldCodes(await post({ email: emp.email, catalog_slug: 'x'.repeat(81) }))).toEqual([{ field: 'catalog_slug', code: 'too_long' }]);
    expect(await sql(h, `select id from catalog_requests where user_id = ?`, [emp.userId])).toEqual([]);
  });

  it('honours Idempotency-Key: same body replays, a different body gives 409', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const other = await newUser(h);
    const key = `assign-${randomUUID()}`;
    const post = (email: string) =>
      http(h, 'POST', '/api/v1/catalog/approvals', {
        token: tools.token,
        body: { email, catalog_slug: tools.catalogSlug },
        headers: { 'idempotency-key': key },
      });
    const a = await post(emp.email);
    const b = await post(emp.email);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body).toEqual(a.body);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await post(other.email), 409);
    expect(await sql(h, `select id from catalog_requests where user_id = ?`, [other.userId])).toEqual([]);
  });
});

describe('GET /api/v1/catalog/approvals', () => {
  it('filters by email, catalog_slug and status (pending, approved, rejected, revoked)', async () => {
    const tools = await adminTools(h);
    const other = await adminTools(h);
    const approved = await approvedEmployee(h, tools);
    const pending = await newUser(h);
    const pendingId = await pendingRequest(h, pending.email, tools.catalogSlug);
    const rejected = await newUser(h);
    const rejectedId = await pendingRequest(h, rejected.email, tools.catalogSlug);
    expect((await review(tools.token, { request_id: rejectedId, decision: 'reject' })).status).toBe(200);
    const revoked = await approvedEmployee(h, tools);
    expect((await revoke(tools.token, { email: revoked.email, catalog_slug: tools.catalogSlug })).body.revoked).toBe(true);
    // The approved employee also holds another catalog row.
    await approvedEmployee(h, other, approved);

    const all = await list(tools.token, `catalog_slug=${encodeURIComponent(tools.catalogSlug)}`);
    expect(all.status, all.text).toBe(200);
    expect(all.body.requestId).toBe(all.headers.get('x-request-id'));
    for (const i of all.body.items) CatalogApprovalListItemSchema.parse(i);
    const byEmail = Object.fromEntries(all.body.items.map((i: any) => [i.email, i.status]));
    expect(byEmail).toEqual({ [approved.email]: 'approved', [pending.email]: 'pending', [rejected.email]: 'rejected', [revoked.email]: 'revoked' });
    expect(all.body.items.find((i: any) => i.email === pending.email)).toMatchObject({ id: pendingId, reviewedAt: null, reviewedByEmail: null });
    expect(all.body.items.find((i: any) => i.email === rejected.email)).toMatchObject({ id: rejectedId, reviewedByEmail: tools.admin.email });

    for (const [status, email] of [
      ['pending', pending.email],
      ['approved', approved.email],
      ['rejected', rejected.email],
      ['revoked', revoked.email],
    ] as const) {
      const r = await list(tools.token, `catalog_slug=${encodeURIComponent(tools.catalogSlug)}&status=${status}`);
      expect(r.status).toBe(200);
      expect(r.body.items.map((i: any) => [i.email, i.status])).toEqual([[email, status]]);
    }

    const mine = await list(tools.token, `email=${encodeURIComponent(approved.email.toUpperCase())}`);
    expect(mine.body.items.map((i: any) => i.catalogSlug).sort()).toEqual([tools.catalogSlug, other.catalogSlug].sort());
    const both = await list(tools.token, `email=${encodeURIComponent(approved.email)}&catalog_slug=${encodeURIComponent(other.catalogSlug)}`);
    expect(both.body.items.map((i: any) => i.catalogSlug)).toEqual([other.catalogSlug]);
    expect((await list(tools.token, `email=${encodeURIComponent(uniqueEmail('ghost'))}`)).body.items).toEqual([]);
  });

  it('a bad status, a malformed email or an unknown parameter gives 400', async () => {
    const tools = await adminTools(h);
    const bad = await list(tools.token, 'status=in_execution');
    expectProblem(bad, 400, 'schema_invalid');
    expect(fieldCodes(bad)).toEqual([{ field: 'status', code: 'invalid_enum' }]);
    expect(fieldCodes(await list(tools.token, 'email=nope'))).toEqual([{ field: 'email', code: 'invalid_format' }]);
    expect(fieldCodes(await list(tools.token, 'colour=red'))).toEqual([{ field: 'colour', code: 'unknown_key' }]);
  });
});

describe('DELETE /api/v1/catalog/approvals (revoke)', () => {
  it('revokes, invalidates the tokens minted under it at once, notifies the user once; a repeat is a no-op', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    // A rotation: both the current and the prior value must stop working.
    const rotated = await claim(h, tools.token, { email: c.user.email });
    expect(rotated.status).toBe(200);
    const own = await newPersonalToken(h, { user: c.user });
    expect((await publish(h, rotated.body.token, ev(tools))).status).toBe(202);

    const r = await revoke(tools.token, { email: c.user.email, catalog_slug: tools.catalogSlug });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ revoked: true, tokensInvalidated: 1 });
    expectProblem(await publish(h, rotated.body.token, ev(tools)), 401, 'token_revoked');
    expectProblem(await publish(h, c.token, ev(tools)), 401, 'token_revoked');
    // The employee's self-service token is not under the approval.
    expect((await publish(h, own.token, event(h))).status).toBe(202);

    const [req] = await sql(h, `select status from catalog_requests where id = ?`, [c.user.approvalId]);
    expect(req.status).toBe('revoked');
    const assets = await sql(h, `select status, revoked_at is not null as stamped from access_assets where request_id = ?`, [c.user.approvalId]);
    expect(assets).toEqual([{ status: 'revoked', stamped: true }]);
    const audit = await sql(h, `select action from audit_log where token_id = ? and action = 'inbound.token.revoked'`, [c.tokenId]);
    expect(audit).toHaveLength(1);

    const name = await catalogName(tools);
    const notes = (await notificationsOf(c.user.userId)).filter((n) => n.title.includes(name));
    expect(notes).toHaveLength(1);
    expect(notes[0].title.startsWith('🔒')).toBe(true);
    expect(notes[0].target_url).toMatch(/\/team-support\?tab=assets$/);
    expect(JSON.stringify(notes[0])).not.toContain(c.token);

    const again = await revoke(tools.token, { email: c.user.email, catalog_slug: tools.catalogSlug });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ revoked: false, tokensInvalidated: 0 });
    expect((await notificationsOf(c.user.userId)).filter((n) => n.title.includes(name))).toHaveLength(1);

    const listed = await list(tools.token, `email=${encodeURIComponent(c.user.email)}`);
    expect(listed.body.items.map((i: any) => i.status)).toEqual(['revoked']);
    // A claim is refused now; a fresh assign starts a new approval and claims work again.
    expectProblem(await claim(h, tools.token, { email: c.user.email }), 403, 'no_approved_request');
    const reassigned = await assign(h, tools, c.user.email);
    expect(reassigned.status).toBe(201);
    expect(reassigned.body.id).not.toBe(c.user.approvalId);
    const fresh = await claim(h, tools.token, { email: c.user.email });
    expect(fresh.status).toBe(200);
    expect(fresh.body.tokenId).not.toBe(c.tokenId);
    expect((await publish(h, fresh.body.token, ev(tools))).status).toBe(202);
  });

  it('revoking an approval with no claimed tokens reports 0 invalidated; a never-approved employee is a no-op', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    expect((await revoke(tools.token, { email: emp.email, catalog_slug: tools.catalogSlug })).body).toEqual({ revoked: true, tokensInvalidated: 0 });
    const stranger = await newUser(h);
    expect((await revoke(tools.token, { email: stranger.email, catalog_slug: tools.catalogSlug })).body).toEqual({ revoked: false, tokensInvalidated: 0 });
    expect(await notificationsOf(stranger.userId)).toEqual([]);
  });

  it('unknown email gives 422 user-not-found; unknown slug gives 404; bad body gives 400', async () => {
    const tools = await adminTools(h);
    const ghost = uniqueEmail('ghost');
    const r = await revoke(tools.token, { email: ghost, catalog_slug: tools.catalogSlug });
    expectProblem(r, 422, 'user_not_found', 'user-not-found');
    expect(r.body.email).toBe(ghost);
    const emp = await newUser(h);
    expectProblem(await revoke(tools.token, { email: emp.email, catalog_slug: `nope-${randomUUID()}` }), 404);
    expectProblem(await revoke(tools.token, { email: emp.email }), 400, 'schema_invalid');
  });
});

describe('POST /api/v1/catalog/approvals/review', () => {
  it('approve: pending -> approved with an access asset; the employee can be claimed for', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const id = await pendingRequest(h, emp.email, tools.catalogSlug);
    expectProblem(await claim(h, tools.token, { email: emp.email }), 403, 'no_approved_request');
    const r = await review(tools.token, { request_id: id, decision: 'approve', note: 'ok for Q3' });
    expect(r.status, r.text).toBe(200);
    expect(CatalogApprovalListItemSchema.parse(r.body)).toMatchObject({
      id,
      email: emp.email,
      catalogSlug: tools.catalogSlug,
      status: 'approved',
      reviewedByEmail: tools.admin.email,
    });
    expect(r.body.reviewedAt).not.toBeNull();
    expect(await sql(h, `select status from access_assets where request_id = ?`, [id])).toEqual([{ status: 'active' }]);
    const [row] = await sql(h, `select review_note from catalog_requests where id = ?`, [id]);
    expect(row.review_note).toBe('ok for Q3');
    expect((await claim(h, tools.token, { email: emp.email })).status).toBe(200);
  });

  it('reject: pending -> rejected, no asset, claims stay refused', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const id = await pendingRequest(h, emp.email, tools.catalogSlug);
    const r = await review(tools.token, { request_id: id, decision: 'reject' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, status: 'rejected', reviewedByEmail: tools.admin.email });
    expect(await sql(h, `select id from access_assets where request_id = ?`, [id])).toEqual([]);
    expectProblem(await claim(h, tools.token, { email: emp.email }), 403, 'no_approved_request');
  });

  it('reviewing a non-pending request gives 409; unknown id 404; bad body 400', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const id = await pendingRequest(h, emp.email, tools.catalogSlug);
    expect((await review(tools.token, { request_id: id, decision: 'approve' })).status).toBe(200);
    expectProblem(await review(tools.token, { request_id: id, decision: 'approve' }), 409);
    expectProblem(await review(tools.token, { request_id: id, decision: 'reject' }), 409);
    // Still approved with one asset.
    expect(await sql(h, `select id from access_assets where request_id = ?`, [id])).toHaveLength(1);
    expectProblem(await review(tools.token, { request_id: randomUUID(), decision: 'approve' }), 404);
    const bad = await review(tools.token, { request_id: 'nope', decision: 'maybe', note: 'n'.repeat(501) });
    expectProblem(bad, 400, 'schema_invalid');
    expect(Object.keys(bad.body.fieldErrors).sort()).toEqual(['decision', 'note', 'request_id']);
  });

  it('two concurrent reviews of one pending request: one wins, the other gets 409', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const id = await pendingRequest(h, emp.email, tools.catalogSlug);
    const rs = await Promise.all([review(tools.token, { request_id: id, decision: 'approve' }), review(tools.token, { request_id: id, decision: 'reject' })]);
    expect(rs.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = rs.find((r) => r.status === 200)!;
    const assets = await sql(h, `select id from access_assets where request_id = ?`, [id]);
    expect(assets).toHaveLength(winner.body.status === 'approved' ? 1 : 0);
  });
});

describe('who may manage approvals (Authentication 7)', () => {
  const calls = (tools: ToolsFixture, email: string, requestId: string) =>
    [
      ['GET', () => list(tools.token)],
      ['POST', () => http(h, 'POST', '/api/v1/catalog/approvals', { token: tools.token, body: { email, catalog_slug: tools.catalogSlug } })],
      ['DELETE', () => revoke(tools.token, { email, catalog_slug: tools.catalogSlug })],
      ['review', () => review(tools.token, { request_id: requestId, decision: 'approve' })],
    ] as const;

  it('a personal token (self-service or claimed) and an agent token get 401 token_mismatch on every route', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const id = await pendingRequest(h, emp.email, tools.catalogSlug);
    const personal = await newPersonalToken(h);
    const claimed = await claimedEmployee(h, tools);
    for (const token of [personal.token, claimed.token]) {
      for (const [name, call] of calls({ ...tools, token }, emp.email, id)) {
        const r = await call();
        expect(r.status, `${name}: ${r.text}`).toBe(401);
        expect(r.body.code).toBe('token_mismatch');
      }
    }
    for (const [name, call] of calls({ ...tools, token: 'not-a-token' }, emp.email, id)) {
      expect((await call()).status, name).toBe(401);
    }
    expect((await sql(h, `select status from catalog_requests where id = ?`, [id]))[0].status).toBe('pending');
  });

  it('a tools-token whose owner is not admin gets 403 on every route and changes nothing', async () => {
    const tools = await nonAdminTools(h);
    const emp = await newUser(h);
    const id = await pendingRequest(h, emp.email, tools.catalogSlug);
    for (const [name, call] of calls(tools, emp.email, id)) {
      const r = await call();
      expect(r.status, `${name}: ${r.text}`).toBe(403);
      expect(r.body.code).toBe('forbidden_admin_only');
    }
    expect((await sql(h, `select status from catalog_requests where user_id = ?`, [emp.userId])).map((r) => r.status)).toEqual(['pending']);
  });

  it('a revoked tools-token gets 401 token_revoked', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    await sql(h, `update inbound_tokens set status = 'revoked' where id = ?`, [tools.tokenId]);
    expectProblem(await assign(h, tools, emp.email), 401, 'token_revoked');
  });
});
