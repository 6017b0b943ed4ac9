// POST /api/v1/tokens/claim and /claim/batch (SPEC mode 3, "Token requests and results",
// Authentication 2, 5-7, "Personal token lifecycle", Limits "Claim batch", "Rotation overlap").
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimedTokenSchema } from '../../../src/domain/tokens/claim-token.rules.js';
import { event, http, newPersonalToken, newUser, publish, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';
import {
  adminTools,
  agentToken,
  approvedEmployee,
  claim,
  claimedEmployee,
  DAY_MS,
  expectProblem,
  fieldCodes,
  nonAdminTools,
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

const PERSONAL_TOKEN = /^svc-in-pers-[A-Za-z0-9_-]{32}$/;
const batch = (toolsToken: string, body: unknown) => http(h, 'POST', '/api/v1/tokens/claim/batch', { token: toolsToken, body });
const ev = (tools: ToolsFixture, over: Record<string, unknown> = {}) => event(h, { event_type: `${tools.prefix}ticket.opened`, ...over });
/** The legacy personal ping: authenticates a value without writing anything. */
const accepted = async (token: string) => (await http(h, 'POST', '/api/internal-os/integrations/inbound/personal/ping', { token, body: {} })).status === 200;

describe('POST /api/v1/tokens/claim: mint', () => {
  it('mints a ClaimedToken for an approved employee', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    const before = h.clock.now().getTime();
    const r = await claim(h, tools.token, { email: emp.email });
    expect(r.status, r.text).toBe(200);
    const body = ClaimedTokenSchema.parse(r.body);
    expect(body.token).toMatch(PERSONAL_TOKEN);
    expect(body.ownerUserId).toBe(emp.userId);
    // No previous token: the overlap has already ended.
    expect(Date.parse(body.expiresPriorAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(body.expiresPriorAt)).toBeLessThanOrEqual(h.clock.now().getTime() + 1000);
    const [row] = await sql(
      h,
      `select kind, status, owner_user_id, claimed_by_tools_token_id, approval_id, daily_limit, i.slug from inbound_tokens t join integrators i on i.id = t.integrator_id where t.id = ?`,
      [body.tokenId],
    );
    expect(row).toMatchObject({
      kind: 'personal',
      status: 'active',
      owner_user_id: emp.userId,
      claimed_by_tools_token_id: tools.tokenId,
      approval_id: emp.approvalId,
      daily_limit: 50,
      slug: tools.integratorSlug,
    });
  });

  it('the claimed token publishes under `<integrator>.` (202) and is refused for `personal.` (400 namespace_mismatch)', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const ok = await publish(h, c.token, ev(tools));
    expect(ok.status, ok.text).toBe(202);
    expect(ok.body.recipientUserId).toBe(c.user.userId);
    const bad = await publish(h, c.token, event(h, { event_type: 'personal.build.failed' }));
    expectProblem(bad, 400, 'schema_invalid', 'validation-failed');
    expect(fieldCodes(bad)).toContainEqual({ field: 'event_type', code: 'namespace_mismatch' });
    expect(bad.body.fieldErrors.event_type).toHaveLength(1);
  });

  it('daily_limit 1 and 1000 are accepted and stored; 0 and 1001 give 400; default is 50', async () => {
    const tools = await adminTools(h);
    for (const limit of [1, 1000]) {
      const emp = await approvedEmployee(h, tools);
      const r = await claim(h, tools.token, { email: emp.email, daily_limit: limit });
      expect(r.status, r.text).toBe(200);
      const [row] = await sql(h, `select daily_limit from inbound_tokens where id = ?`, [r.body.tokenId]);
      expect(row.daily_limit).toBe(limit);
    }
    const emp = await approvedEmployee(h, tools);
    for (const limit of [0, 1001, 2.5, '50']) {
      const r = await claim(h, tools.token, { email: emp.email, daily_limit: limit });
      expectProblem(r, 400, 'schema_invalid');
      expect(Object.keys(r.body.fieldErrors)).toEqual(['daily_limit']);
    }
    // Nothing was minted by the refused requests.
    expect(await sql(h, `select id from inbound_tokens where owner_user_id = ?`, [emp.userId])).toEqual([]);
  });

  it('severity_ceiling is accepted (and ignored); label up to 80 chars is stored, 81 gives 400', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    const r = await claim(h, tools.token, { email: emp.email, severity_ceiling: 'info', label: 'L'.repeat(80) });
    expect(r.status, r.text).toBe(200);
    const [row] = await sql(h, `select label from inbound_tokens where id = ?`, [r.body.tokenId]);
    expect(row.label).toBe('L'.repeat(80));
    // A critical event goes through even though the ceiling named info.
    expect((await publish(h, r.body.token, ev(tools, { severity: 'critical' }))).status).toBe(202);

    const long = await claim(h, tools.token, { email: emp.email, label: 'L'.repeat(81) });
    expectProblem(long, 400, 'schema_invalid');
    expect(fieldCodes(long)).toEqual([{ field: 'label', code: 'too_long' }]);
    const badSeverity = await claim(h, tools.token, { email: emp.email, severity_ceiling: 'fatal' });
    expectProblem(badSeverity, 400, 'schema_invalid');
    expect(fieldCodes(badSeverity)).toEqual([{ field: 'severity_ceiling', code: 'invalid_enum' }]);
  });

  it('missing or malformed email and unknown keys give 400 with every issue', async () => {
    const tools = await adminTools(h);
    const r = await claim(h, tools.token, { email: 'not-an-email', extra: 1 });
    expectProblem(r, 400, 'schema_invalid');
    expect(fieldCodes(r)).toEqual(
      expect.arrayContaining([
        { field: 'email', code: 'invalid_format' },
        { field: 'extra', code: 'unknown_key' },
      ]),
    );
    const missing = await claim(h, tools.token, {});
    expect(fieldCodes(missing)).toEqual([{ field: 'email', code: 'required' }]);
  });

  it('an employee without an approved request: 403 no_approved_request, nothing minted', async () => {
    const tools = await adminTools(h);
    const emp = await newUser(h);
    const r = await claim(h, tools.token, { email: emp.email });
    expectProblem(r, 403, 'no_approved_request', 'forbidden');
    expect(await sql(h, `select id from inbound_tokens where owner_user_id = ?`, [emp.userId])).toEqual([]);
  });

  it('an unknown email: 422 user-not-found carrying the email', async () => {
    const tools = await adminTools(h);
    const email = uniqueEmail('ghost');
    const r = await claim(h, tools.token, { email });
    expectProblem(r, 422, 'user_not_found', 'user-not-found');
    expect(r.body).toMatchObject({ status: 422, title: expect.any(String), detail: expect.any(String), email });
  });

  it('an inactive (offboarded) employee cannot be claimed for', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    await sql(h, `update users set status = 'offboarded' where id = ?`, [emp.userId]);
    const r = await claim(h, tools.token, { email: emp.email });
    expectProblem(r, 403, 'user_inactive');
  });
});

describe('rotation (claim for an already-claimed employee)', () => {
  it('new token works at once, previous stays valid for 24 h then 401 token_revoked; tokenId is stable', async () => {
    const tools = await adminTools(h);
    const first = await claimedEmployee(h, tools);
    const r = await claim(h, tools.token, { email: first.user.email });
    expect(r.status, r.text).toBe(200);
    const second = ClaimedTokenSchema.parse(r.body);
    expect(second.token).toMatch(PERSONAL_TOKEN);
    expect(second.token).not.toBe(first.token);
    expect(second.tokenId).toBe(first.tokenId);
    expect(second.ownerUserId).toBe(first.user.userId);
    const overlapEnd = Date.parse(second.expiresPriorAt);
    expect(Math.abs(overlapEnd - (h.clock.now().getTime() + DAY_MS))).toBeLessThan(5_000);

    expect((await publish(h, second.token, ev(tools))).status).toBe(202);
    expect((await publish(h, first.token, ev(tools))).status).toBe(202);
    expect((await sql(h, `select id from inbound_tokens where owner_user_id = ?`, [first.user.userId])).length).toBe(1);
    const [audit] = await sql(h, `select count(*)::int as n from audit_log where action = 'inbound.token.rotated' and token_id = ?`, [first.tokenId]);
    expect(audit.n).toBe(1);

    h.clock.advance(overlapEnd - h.clock.now().getTime() + 1_000);
    expectProblem(await publish(h, first.token, ev(tools)), 401, 'token_revoked', 'unauthorized');
    expect((await publish(h, second.token, ev(tools))).status).toBe(202);
  });

  it('a rotated token still reads back the deliveries it sent (same token id)', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const sent = await publish(h, c.token, ev(tools));
    expect(sent.status).toBe(202);
    const rotated = await claim(h, tools.token, { email: c.user.email });
    const r = await http(h, 'GET', `/api/v1/events/${sent.body.deliveryId}`, { token: rotated.body.token });
    expect(r.status, r.text).toBe(200);
    expect(r.body.deliveryId).toBe(sent.body.deliveryId);
  });

  it('10 concurrent claims for one employee end with one active claimed row; only the latest value and one prior value are accepted', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    const rs = await Promise.all(Array.from({ length: 10 }, () => claim(h, tools.token, { email: emp.email })));
    expect(rs.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(rs.map((r) => r.body.tokenId)).size).toBe(1);
    expect(new Set(rs.map((r) => r.body.token)).size).toBe(10);

    const rows = await sql(
      h,
      `select id, status, token_hash, prior_token_hash from inbound_tokens where owner_user_id = ? and claimed_by_tools_token_id is not null`,
      [emp.userId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe('active');

    const hash = (v: string) => createHash('sha256').update(v).digest('hex');
    const latest = rs.find((r) => hash(r.body.token) === rows[0].token_hash);
    const prior = rs.find((r) => hash(r.body.token) === rows[0].prior_token_hash);
    expect(latest).toBeDefined();
    expect(prior).toBeDefined();
    const acceptedValues: string[] = [];
    for (const r of rs) if (await accepted(r.body.token)) acceptedValues.push(r.body.token);
    expect(acceptedValues.sort()).toEqual([latest!.body.token, prior!.body.token].sort());
  });
});

describe('claims never replay from an Idempotency-Key (documented in claim-token.ts: values are never stored)', () => {
  it('the same key twice rotates again and shows a new value', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    const headers = { 'idempotency-key': `claim-${randomBytes(4).toString('hex')}` };
    const a = await http(h, 'POST', '/api/v1/tokens/claim', { token: tools.token, body: { email: emp.email }, headers });
    const b = await http(h, 'POST', '/api/v1/tokens/claim', { token: tools.token, body: { email: emp.email }, headers });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.token).not.toBe(a.body.token);
    expect(b.body.tokenId).toBe(a.body.tokenId);
    expect(await accepted(b.body.token)).toBe(true);
  });
});

describe('POST /api/v1/tokens/claim/batch', () => {
  it('rows are independent: mixed outcomes in request order, successes usable', async () => {
    const tools = await adminTools(h);
    const ok1 = await approvedEmployee(h, tools);
    const ok2 = await approvedEmployee(h, tools);
    const noApproval = await newUser(h);
    const ghost = uniqueEmail('ghost');
    const r = await batch(tools.token, {
      claims: [{ email: ok1.email, label: 'one' }, { email: noApproval.email }, { email: ghost }, { email: ok2.email, daily_limit: 7 }],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.requestId).toBe(r.headers.get('x-request-id'));
    expect(r.body.results.map((x: any) => [x.email, x.ok, x.reason])).toEqual([
      [ok1.email, true, undefined],
      [noApproval.email, false, 'no_approved_request'],
      [ghost, false, 'user_not_found'],
      [ok2.email, true, undefined],
    ]);
    for (const [i, emp] of [
      [0, ok1],
      [3, ok2],
    ] as const) {
      const t = ClaimedTokenSchema.parse(r.body.results[i].token);
      expect(t.ownerUserId).toBe(emp.userId);
      expect(t.token).toMatch(PERSONAL_TOKEN);
      expect((await publish(h, t.token, ev(tools))).status).toBe(202);
    }
    expect(r.body.results[1].token).toBeUndefined();
    const [row] = await sql(h, `select daily_limit from inbound_tokens where id = ?`, [r.body.results[3].token.tokenId]);
    expect(row.daily_limit).toBe(7);
  });

  it('a batch that only fails row by row is still 200', async () => {
    const tools = await adminTools(h);
    const r = await batch(tools.token, { claims: [{ email: uniqueEmail('ghost') }] });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([{ email: expect.any(String), ok: false, reason: 'user_not_found' }]);
  });

  it('1-100 claims: 100 rows are accepted, 0 and 101 give 400', async () => {
    const tools = await adminTools(h);
    const claims = (n: number) => Array.from({ length: n }, () => ({ email: uniqueEmail('ghost') }));
    const full = await batch(tools.token, { claims: claims(100) });
    expect(full.status, full.text).toBe(200);
    expect(full.body.results).toHaveLength(100);
    const empty = await batch(tools.token, { claims: [] });
    expectProblem(empty, 400, 'schema_invalid');
    expect(fieldCodes(empty)).toEqual([{ field: 'claims', code: 'too_few' }]);
    const over = await batch(tools.token, { claims: claims(101) });
    expectProblem(over, 400, 'schema_invalid');
    expect(fieldCodes(over)).toEqual([{ field: 'claims', code: 'too_many' }]);
  });

  it('a row with an invalid daily_limit fails the whole request with 400 (schema), nothing minted', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    const r = await batch(tools.token, { claims: [{ email: emp.email }, { email: emp.email, daily_limit: 0 }] });
    expectProblem(r, 400, 'schema_invalid');
    expect(fieldCodes(r)).toEqual([{ field: 'claims[1].daily_limit', code: 'too_small' }]);
    expect(await sql(h, `select id from inbound_tokens where owner_user_id = ?`, [emp.userId])).toEqual([]);
  });

  it('the same employee twice in one batch: both rows succeed on one token row (one rotates the other)', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    const r = await batch(tools.token, { claims: [{ email: emp.email }, { email: emp.email }] });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: any) => x.ok)).toEqual([true, true]);
    expect(r.body.results[0].token.tokenId).toBe(r.body.results[1].token.tokenId);
    const rows = await sql(h, `select id from inbound_tokens where owner_user_id = ? and status = 'active'`, [emp.userId]);
    expect(rows).toHaveLength(1);
  });
});

describe('who may claim (Authentication 7)', () => {
  const routes = [
    ['claim', (t: string, email: string) => claim(h, t, { email })],
    ['claim batch', (t: string, email: string) => batch(t, { claims: [{ email }] })],
  ] as const;

  for (const [name, call] of routes) {
    it(`${name}: personal and agent tokens give 401 token_mismatch`, async () => {
      const tools = await adminTools(h);
      const emp = await approvedEmployee(h, tools);
      const personal = await newPersonalToken(h);
      expectProblem(await call(personal.token, emp.email), 401, 'token_mismatch', 'unauthorized');
      const claimed = await claimedEmployee(h, tools);
      expectProblem(await call(claimed.token, emp.email), 401, 'token_mismatch');
      expectProblem(await call(await agentToken(h), emp.email), 401, 'token_mismatch');
    });

    it(`${name}: a tools-token whose owner is not admin gives 403 and mints nothing`, async () => {
      const tools = await nonAdminTools(h);
      const emp = await approvedEmployee(h, { ...(await adminTools(h)), catalogSlug: tools.catalogSlug });
      const r = await call(tools.token, emp.email);
      expectProblem(r, 403, 'forbidden_admin_only', 'forbidden');
      expect(await sql(h, `select id from inbound_tokens where owner_user_id = ?`, [emp.userId])).toEqual([]);
    });

    it(`${name}: a revoked or disabled tools-token gives 401 token_revoked; unknown gives token_not_found`, async () => {
      const tools = await adminTools(h);
      const emp = await approvedEmployee(h, tools);
      await sql(h, `update inbound_tokens set status = 'revoked', revoked_at = now() where id = ?`, [tools.tokenId]);
      expectProblem(await call(tools.token, emp.email), 401, 'token_revoked');
      const other = await adminTools(h);
      await sql(h, `update inbound_tokens set status = 'disabled' where id = ?`, [other.tokenId]);
      expectProblem(await call(other.token, emp.email), 401, 'token_revoked');
      expectProblem(await call(`svc-tools-${randomBytes(24).toString('base64url')}`, emp.email), 401, 'token_not_found');
      expectProblem(await http(h, 'POST', '/api/v1/tokens/claim', { body: { email: emp.email } }), 401, 'missing_or_invalid_authorization');
    });
  }

  it("another integrator's tools-token claims only for ITS catalog row", async () => {
    const a = await adminTools(h);
    const b = await adminTools(h);
    const empA = await approvedEmployee(h, a);
    const refused = await claim(h, b.token, { email: empA.email });
    expectProblem(refused, 403, 'no_approved_request');
    const rowRefused = await batch(b.token, { claims: [{ email: empA.email }] });
    expect(rowRefused.body.results).toEqual([{ email: empA.email, ok: false, reason: 'no_approved_request' }]);

    // Approved for B too: B mints a separate token of ITS integrator, with B's prefix.
    await approvedEmployee(h, b, empA);
    const fromB = await claim(h, b.token, { email: empA.email });
    expect(fromB.status).toBe(200);
    const fromA = await claim(h, a.token, { email: empA.email });
    expect(fromA.status).toBe(200);
    expect(fromA.body.tokenId).not.toBe(fromB.body.tokenId);
    expect((await publish(h, fromB.body.token, ev(b))).status).toBe(202);
    expect((await publish(h, fromB.body.token, ev(a))).status).toBe(400);
  });
});

describe('ALLOWED_EMAIL_DOMAINS', () => {
  let h2: Harness;
  beforeAll(async () => {
    h2 = await startHarness({ env: { ALLOWED_EMAIL_DOMAINS: 'example.test' } });
  });
  afterAll(async () => {
    await h2?.close();
  });

  it('an email outside the allowlist: 422 domain-not-allowed with email and domain (single); reason domain_not_allowed (batch)', async () => {
    const tools = await adminTools(h2);
    const inside = await approvedEmployee(h2, tools);
    const email = `x-${randomBytes(3).toString('hex')}@other.test`;
    const r = await http(h2, 'POST', '/api/v1/tokens/claim', { token: tools.token, body: { email } });
    expectProblem(r, 422, 'domain_not_allowed', 'domain-not-allowed');
    expect(r.body).toMatchObject({ status: 422, email, domain: 'other.test' });

    const b = await http(h2, 'POST', '/api/v1/tokens/claim/batch', { token: tools.token, body: { claims: [{ email }, { email: inside.email }] } });
    expect(b.status).toBe(200);
    expect(b.body.results.map((x: any) => [x.ok, x.reason])).toEqual([
      [false, 'domain_not_allowed'],
      [true, undefined],
    ]);
  });
});
