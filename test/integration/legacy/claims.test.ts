// The older tools-token endpoints under /api/internal-os/integrations (SPEC section B: /claim,
// /claim/batch, /claim/ping, /catalog/approval; "Legacy claim and ping results"; Limits
// "Claim batch ... at most 50 emails (legacy)").
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, newUser, publishLegacy, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';
import { adminTools, approvedEmployee, claimedEmployee, DAY_MS, nonAdminTools, sql, type ToolsFixture } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const BASE = '/api/internal-os/integrations';
const PERSONAL_TOKEN = /^svc-in-pers-[A-Za-z0-9_-]{32}$/;
const ENDPOINT = /^https?:\/\/.+\/api\/internal-os\/integrations\/inbound\/personal$/;
const legacyClaim = (token: string, body: unknown) => http(h, 'POST', `${BASE}/claim`, { token, body });
const legacyBatch = (token: string, emails: string[]) => http(h, 'POST', `${BASE}/claim/batch`, { token, body: { emails } });
const ping = (token?: string) => http(h, 'POST', `${BASE}/claim/ping`, { token });
const revokeLegacy = (token: string, body: unknown) => http(h, 'POST', `${BASE}/catalog/approval`, { token, body });
const ev = (tools: ToolsFixture) => event(h, { event_type: `${tools.prefix}ticket.opened` });

function expectLegacyError(r: Awaited<ReturnType<typeof http>>, status: number, error: string) {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.body.error).toBe(error);
}

describe('POST /claim', () => {
  it('201 on the first mint, 200 with rotated true on the next; both values work during the overlap', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    const first = await legacyClaim(tools.token, { email: emp.email });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toEqual({
      ok: true,
      token: expect.stringMatching(PERSONAL_TOKEN),
      token_id: expect.any(String),
      endpoint: expect.stringMatching(ENDPOINT),
      rotated: false,
    });
    const [row] = await sql(h, `select owner_user_id, claimed_by_tools_token_id from inbound_tokens where id = ?`, [first.body.token_id]);
    expect(row).toEqual({ owner_user_id: emp.userId, claimed_by_tools_token_id: tools.tokenId });

    const second = await legacyClaim(tools.token, { email: emp.email });
    expect(second.status, second.text).toBe(200);
    expect(second.body).toMatchObject({ ok: true, token_id: first.body.token_id, rotated: true });
    expect(second.body.token).not.toBe(first.body.token);
    // The legacy inbound endpoint takes both (namespace not enforced there).
    expect((await publishLegacy(h, second.body.token, ev(tools))).status).toBe(202);
    expect((await publishLegacy(h, first.body.token, event(h, { event_type: 'anything.goes' }))).status).toBe(202);
    h.clock.advance(DAY_MS + 1_000);
    expectLegacyError(await publishLegacy(h, first.body.token, ev(tools)), 401, 'token_revoked');
    expect((await publishLegacy(h, second.body.token, ev(tools))).status).toBe(202);
  });

  it('403 no_approved_request without an approval; 422 user_not_found for an unknown email; 400 for a bad body', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const r = await legacyClaim(tools.token, { email: emp.email });
    expectLegacyError(r, 403, 'no_approved_request');
    expect(await sql(h, `select id from inbound_tokens where owner_user_id = ?`, [emp.userId])).toEqual([]);
    const ghost = uniqueEmail('ghost');
    const g = await legacyClaim(tools.token, { email: ghost });
    expectLegacyError(g, 422, 'user_not_found');
    expect(g.body.email).toBe(ghost);
    const bad = await legacyClaim(tools.token, { email: 'nope' });
    expectLegacyError(bad, 400, 'schema_invalid');
    expect(bad.body).toMatchObject({ field: 'email', errors: [{ field: 'email', reason: 'invalid_format' }] });
  });

  it('wrong callers: personal token 401 token_mismatch, non-admin tools-token 403, revoked tools-token 401', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    const personal = await newPersonalToken(h);
    expectLegacyError(await legacyClaim(personal.token, { email: emp.email }), 401, 'token_mismatch');
    const weak = await nonAdminTools(h);
    expectLegacyError(await legacyClaim(weak.token, { email: emp.email }), 403, 'forbidden_admin_only');
    expectLegacyError(await legacyBatch(weak.token, [emp.email]), 403, 'forbidden_admin_only');
    await sql(h, `update inbound_tokens set status = 'revoked' where id = ?`, [tools.tokenId]);
    expectLegacyError(await legacyClaim(tools.token, { email: emp.email }), 401, 'token_revoked');
    expect(await sql(h, `select id from inbound_tokens where owner_user_id = ?`, [emp.userId])).toEqual([]);
  });
});

describe('a tools-token cannot publish events itself (SPEC mode 3)', () => {
  it('401 token_mismatch on the legacy inbound endpoint and on /api/v1/events', async () => {
    const tools = await adminTools(h);
    expectLegacyError(await publishLegacy(h, tools.token, ev(tools)), 401, 'token_mismatch');
    const v1 = await http(h, 'POST', '/api/v1/events', { token: tools.token, body: ev(tools) });
    expect(v1.status).toBe(401);
    expect(v1.body.code).toBe('token_mismatch');
    expect(await sql(h, `select id from deliveries where token_id = ?`, [tools.tokenId])).toEqual([]);
  });
});

describe('POST /claim/batch', () => {
  it('200 with per-row results: new mint, rotation, no approval, unknown user', async () => {
    const tools = await adminTools(h);
    const fresh = await approvedEmployee(h, tools);
    const claimed = await claimedEmployee(h, tools);
    const noApproval = await newUser(h);
    const ghost = uniqueEmail('ghost');
    const r = await legacyBatch(tools.token, [fresh.email, claimed.user.email, noApproval.email, ghost]);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ ok: true, endpoint: expect.stringMatching(ENDPOINT), succeeded: 2, failed: 2 });
    expect(r.body.results).toEqual([
      { email: fresh.email, ok: true, token: expect.stringMatching(PERSONAL_TOKEN), token_id: expect.any(String), rotated: false },
      { email: claimed.user.email, ok: true, token: expect.stringMatching(PERSONAL_TOKEN), token_id: claimed.tokenId, rotated: true },
      { email: noApproval.email, ok: false, error: 'no_approved_request' },
      { email: ghost, ok: false, error: 'user_not_found' },
    ]);
    for (const row of r.body.results.slice(0, 2)) expect((await publishLegacy(h, row.token, ev(tools))).status).toBe(202);
  });

  it('at most 50 emails: 50 is 200, 51 gives 400 emails_too_many and claims nothing', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    const ghosts = (n: number) => Array.from({ length: n }, () => uniqueEmail('ghost'));
    const fifty = await legacyBatch(tools.token, [emp.email, ...ghosts(49)]);
    expect(fifty.status, fifty.text).toBe(200);
    expect(fifty.body).toMatchObject({ succeeded: 1, failed: 49 });
    expect(fifty.body.results).toHaveLength(50);

    const other = await approvedEmployee(h, tools);
    const over = await legacyBatch(tools.token, [other.email, ...ghosts(50)]);
    expectLegacyError(over, 400, 'emails_too_many');
    expect(await sql(h, `select id from inbound_tokens where owner_user_id = ?`, [other.userId])).toEqual([]);
  });
});

describe('POST /claim/ping', () => {
  it('returns the tools-token ping result and mints or rotates nothing', async () => {
    const tools = await adminTools(h, { name: 'ci-bridge' });
    const claimed = await claimedEmployee(h, tools);
    const before = await sql(h, `select id, token_hash, rotated_at from inbound_tokens order by id`);
    const auditBefore = await sql(h, `select count(*)::int as n from audit_log`);
    const r = await ping(tools.token);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      ok: true,
      kind: 'tools_claim',
      tools_token_id: tools.tokenId,
      label: 'ci-bridge',
      owner: tools.admin.email,
      now: expect.any(String),
    });
    expect(Math.abs(Date.parse(r.body.now) - h.clock.now().getTime())).toBeLessThan(5_000);
    expect(await sql(h, `select id, token_hash, rotated_at from inbound_tokens order by id`)).toEqual(before);
    expect(await sql(h, `select count(*)::int as n from audit_log`)).toEqual(auditBefore);
    expect((await publishLegacy(h, claimed.token, ev(tools))).status).toBe(202);
  });

  it('an invalid, unknown, missing or personal token gives 401', async () => {
    expectLegacyError(await ping('garbage'), 401, 'invalid_token_format');
    expectLegacyError(await ping(`svc-tools-${randomBytes(24).toString('base64url')}`), 401, 'token_not_found');
    expectLegacyError(await ping(), 401, 'missing_or_invalid_authorization');
    expectLegacyError(await ping((await newPersonalToken(h)).token), 401, 'token_mismatch');
  });
});

describe('POST /catalog/approval (revoke through the REST core)', () => {
  const notes = (userId: string) => sql(h, `select title from notifications where user_id = ? and delivery_id is null`, [userId]);

  it('revokes the approval and invalidates its tokens; the employee is notified once by default', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const r = await revokeLegacy(tools.token, { email: c.user.email, catalog_slug: tools.catalogSlug });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ ok: true, revoked: true, tokens_invalidated: 1 });
    expectLegacyError(await publishLegacy(h, c.token, ev(tools)), 401, 'token_revoked');
    const [req] = await sql(h, `select status from catalog_requests where id = ?`, [c.user.approvalId]);
    expect(req.status).toBe('revoked');
    const [{ name }] = await sql(h, `select name from catalog_items where id = ?`, [tools.catalogRowId]);
    expect((await notes(c.user.userId)).filter((n) => n.title.includes(name))).toHaveLength(1);

    const again = await revokeLegacy(tools.token, { email: c.user.email, catalog_slug: tools.catalogSlug });
    expect(again.body).toMatchObject({ ok: true, revoked: false, tokens_invalidated: 0 });
    expect(await notes(c.user.userId)).toHaveLength(1);
    // Visible through the REST list too: one core.
    const listed = await http(h, 'GET', `/api/v1/catalog/approvals?email=${encodeURIComponent(c.user.email)}`, { token: tools.token });
    expect(listed.body.items.map((i: any) => i.status)).toEqual(['revoked']);
  });

  it('notify_employee false revokes without a notification', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const r = await revokeLegacy(tools.token, { email: c.user.email, catalog_slug: tools.catalogSlug, notify_employee: false });
    expect(r.body).toMatchObject({ revoked: true, tokens_invalidated: 1 });
    expectLegacyError(await publishLegacy(h, c.token, ev(tools)), 401, 'token_revoked');
    expect(await notes(c.user.userId)).toEqual([]);
  });

  it('unknown email 422 user_not_found; personal token 401; non-admin tools-token 403', async () => {
    const tools = await adminTools(h);
    const ghost = uniqueEmail('ghost');
    const g = await revokeLegacy(tools.token, { email: ghost, catalog_slug: tools.catalogSlug });
    expectLegacyError(g, 422, 'user_not_found');
    expect(g.body.email).toBe(ghost);
    const c = await claimedEmployee(h, tools);
    expectLegacyError(await revokeLegacy(c.token, { email: c.user.email, catalog_slug: tools.catalogSlug }), 401, 'token_mismatch');
    const weak = await nonAdminTools(h);
    expectLegacyError(await revokeLegacy(weak.token, { email: c.user.email, catalog_slug: tools.catalogSlug }), 403, 'forbidden_admin_only');
    expect((await publishLegacy(h, c.token, ev(tools))).status).toBe(202);
  });
});
