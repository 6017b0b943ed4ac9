// POST /api/v1/events/bulk (SPEC BulkEventRequest, BulkEventDeliveryResult, Recipient, "Dedup and
// repeated events" (bulk: per recipient), Errors "Bulk per-recipient error values", Limits
// "Bulk recipients", Authentication 7). Transaction boundaries are documented in publish-bulk.ts.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BulkEventResponseSchema } from '../../../src/domain/events/publish-bulk.js';
import { event, http, newPersonalToken, newUser, operator, startHarness, uniqueEmail, type Harness, type TestUser } from '../../helpers/harness.js';
import {
  adminTools,
  approvedEmployee,
  claim,
  claimedEmployee,
  expectProblem,
  fieldCodes,
  nonAdminTools,
  sql,
  tag,
  type ToolsFixture,
} from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const bulk = (token: string, body: unknown, headers?: Record<string, string>) => http(h, 'POST', '/api/v1/events/bulk', { token, body, headers });
const tpl = (tools: ToolsFixture, over: Record<string, unknown> = {}) => event(h, { event_type: `${tools.prefix}alert.fired`, ...over });
const byEmail = (u: { email: string }) => ({ type: 'email', email: u.email });
const byId = (u: { userId: string }) => ({ type: 'user_id', user_id: u.userId });

async function accepted(r: Awaited<ReturnType<typeof bulk>>) {
  expect(r.status, r.text).toBe(202);
  const body = BulkEventResponseSchema.parse(r.body);
  expect(body.requestId).toBe(r.headers.get('x-request-id'));
  return body.results;
}

async function project(members: TestUser[], owner?: TestUser): Promise<string> {
  const slug = `grp-${tag()}`;
  await operator(h, 'projects.create', { slug, name: `Group ${slug}`, members: members.map((m) => m.email), ...(owner ? { owner: owner.email } : {}) });
  return slug;
}

describe('POST /api/v1/events/bulk: fan-out', () => {
  it('202 with one row per recipient in order; pre-claimed rows carry no autoClaimed; approved-unclaimed rows auto-claim', async () => {
    const tools = await adminTools(h);
    const pre = await claimedEmployee(h, tools);
    const fresh = await approvedEmployee(h, tools);
    const ev = tpl(tools);
    const rows = await accepted(await bulk(tools.token, { event: ev, recipients: [byEmail(pre.user), byEmail(fresh)] }));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual({ email: pre.user.email, deliveryId: expect.any(String), deduped: false, pushed: false });
    expect(rows[1]).toEqual({ email: fresh.email, deliveryId: expect.any(String), deduped: false, pushed: false, autoClaimed: true });
    expect(rows[0]!.deliveryId).not.toBe(rows[1]!.deliveryId);

    const deliveries = await sql(h, `select id, token_id, recipient_user_id, integrator_id, event_id, title from deliveries where id = any(?::uuid[])`, [
      `{${rows.map((r) => r.deliveryId).join(',')}}`,
    ]);
    const d = new Map(deliveries.map((x) => [x.recipient_user_id, x]));
    expect(d.get(pre.user.userId)).toMatchObject({ id: rows[0]!.deliveryId, token_id: pre.tokenId, event_id: ev.event_id, title: ev.title });
    const [integrator] = await sql(h, `select id from integrators where slug = ?`, [tools.integratorSlug]);
    expect(d.get(fresh.userId)!.integrator_id).toBe(integrator.id);
    // One inbox row per new delivery.
    const inbox = await sql(h, `select user_id from notifications where delivery_id = any(?::uuid[])`, [`{${rows.map((r) => r.deliveryId).join(',')}}`]);
    expect(inbox.map((n) => n.user_id).sort()).toEqual([pre.user.userId, fresh.userId].sort());

    // The inline mint is a real claimed token of this integrator under the employee's approval.
    const minted = await sql(h, `select id, kind, status, claimed_by_tools_token_id, approval_id from inbound_tokens where owner_user_id = ?`, [fresh.userId]);
    expect(minted).toEqual([
      { id: d.get(fresh.userId)!.token_id, kind: 'personal', status: 'active', claimed_by_tools_token_id: tools.tokenId, approval_id: fresh.approvalId },
    ]);
    // A claim afterwards rotates that same row and its value reads the delivery back.
    const c = await claim(h, tools.token, { email: fresh.email });
    expect(c.body.tokenId).toBe(minted[0].id);
    const back = await http(h, 'GET', `/api/v1/events/${rows[1]!.deliveryId}`, { token: c.body.token });
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({ deliveryId: rows[1]!.deliveryId, recipientUserId: fresh.userId, eventType: ev.event_type });
  });

  it('auto_claim false: an approved but unclaimed recipient fails with no_approved_request; claimed ones are delivered', async () => {
    const tools = await adminTools(h);
    const pre = await claimedEmployee(h, tools);
    const fresh = await approvedEmployee(h, tools);
    const rows = await accepted(await bulk(tools.token, { event: tpl(tools), recipients: [byEmail(fresh), byEmail(pre.user)], auto_claim: false }));
    expect(rows[0]).toEqual({ email: fresh.email, error: 'no_approved_request' });
    expect(rows[1]).toMatchObject({ email: pre.user.email, deduped: false });
    expect(await sql(h, `select id from inbound_tokens where owner_user_id = ?`, [fresh.userId])).toEqual([]);
  });

  it('per-recipient failures never affect the others: no approval, unknown email, unknown user id, inactive user, disabled token', async () => {
    const tools = await adminTools(h);
    const ok1 = await claimedEmployee(h, tools);
    const ok2 = await approvedEmployee(h, tools);
    const noApproval = await newUser(h);
    const ghost = uniqueEmail('ghost');
    const ghostId = randomUUID();
    const offboarded = await claimedEmployee(h, tools);
    await sql(h, `update users set status = 'offboarded' where id = ?`, [offboarded.user.userId]);
    const disabled = await claimedEmployee(h, tools);
    await sql(h, `update inbound_tokens set status = 'disabled' where id = ?`, [disabled.tokenId]);

    const rows = await accepted(
      await bulk(tools.token, {
        event: tpl(tools),
        recipients: [
          byEmail(ok1.user),
          byEmail(noApproval),
          { type: 'email', email: ghost },
          { type: 'user_id', user_id: ghostId },
          byEmail(offboarded.user),
          byEmail(disabled.user),
          byId(ok2),
        ],
      }),
    );
    expect(rows.map((r) => [r.email, r.error ?? 'ok'])).toEqual([
      [ok1.user.email, 'ok'],
      [noApproval.email, 'no_approved_request'],
      [ghost, 'user_not_found'],
      ['', 'user_not_found'],
      [offboarded.user.email, 'user_inactive'],
      [disabled.user.email, 'token_disabled'],
      [ok2.email, 'ok'],
    ]);
    expect(rows[3]).toMatchObject({ userId: ghostId });
    for (const failed of rows.filter((r) => r.error)) expect(failed.deliveryId).toBeUndefined();
    expect(rows[6]).toMatchObject({ deliveryId: expect.any(String), autoClaimed: true });
    // Nothing was written for the failed recipients.
    const users = [noApproval.userId, offboarded.user.userId, disabled.user.userId];
    expect(await sql(h, `select id from deliveries where recipient_user_id = any(?::uuid[])`, [`{${users.join(',')}}`])).toEqual([]);
  });

  it('a user_id recipient is reported with its email', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const rows = await accepted(await bulk(tools.token, { event: tpl(tools), recipients: [byId(c.user)] }));
    expect(rows).toEqual([{ email: c.user.email, deliveryId: expect.any(String), deduped: false, pushed: false }]);
  });

  it('the same user named twice (email and user_id) shares one delivery', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const rows = await accepted(await bulk(tools.token, { event: tpl(tools), recipients: [byEmail(c.user), byId(c.user)] }));
    expect(rows[0]).toMatchObject({ email: c.user.email, deduped: false });
    expect(rows[1]).toMatchObject({ email: c.user.email, deduped: true, deliveryId: rows[0]!.deliveryId });
    expect(await sql(h, `select id from deliveries where recipient_user_id = ?`, [c.user.userId])).toHaveLength(1);
  });

  it('a group recipient expands to its members', async () => {
    const tools = await adminTools(h);
    const a = await claimedEmployee(h, tools);
    const b = await approvedEmployee(h, tools);
    const outsider = await claimedEmployee(h, tools);
    const slug = await project([a.user, b]);
    const rows = await accepted(await bulk(tools.token, { event: tpl(tools), recipients: [{ type: 'group', slug }] }));
    expect(rows.map((r) => r.email).sort()).toEqual([a.user.email, b.email].sort());
    expect(rows.every((r) => typeof r.deliveryId === 'string')).toBe(true);
    expect(await sql(h, `select id from deliveries where recipient_user_id = ?`, [outsider.user.userId])).toEqual([]);
  });

  it('an unknown group refuses the whole request (400) and writes nothing', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const r = await bulk(tools.token, { event: tpl(tools), recipients: [byEmail(c.user), { type: 'group', slug: `nope-${tag()}` }] });
    expectProblem(r, 400, 'schema_invalid');
    expect(fieldCodes(r)).toEqual([{ field: 'recipients[1].slug', code: 'unknown_group' }]);
    expect(await sql(h, `select id from deliveries where recipient_user_id = ?`, [c.user.userId])).toEqual([]);
  });

  it('more than 100 recipients after group expansion gives 400', async () => {
    const tools = await adminTools(h);
    const slug = await project([await newUser(h), await newUser(h)]);
    const recipients = [...Array.from({ length: 99 }, () => ({ type: 'email', email: uniqueEmail('ghost') })), { type: 'group', slug }];
    const r = await bulk(tools.token, { event: tpl(tools), recipients });
    expectProblem(r, 400, 'schema_invalid');
    expect(fieldCodes(r)).toEqual([{ field: 'recipients', code: 'too_many' }]);
  });
});

describe('auto-claim mints only when no token exists (never rotates)', () => {
  it('parallel bulks for the same fresh recipient: one token row, one mint, no rotation', async () => {
    const tools = await adminTools(h);
    const emp = await approvedEmployee(h, tools);
    const rs = await Promise.all(Array.from({ length: 4 }, () => bulk(tools.token, { event: tpl(tools), recipients: [byEmail(emp)] })));
    const rows = (await Promise.all(rs.map(accepted))).map((r) => r[0]!);
    expect(rows.every((r) => typeof r.deliveryId === 'string')).toBe(true);
    expect(rows.filter((r) => r.autoClaimed === true)).toHaveLength(1);
    const tokens = await sql(h, `select id, rotated_at from inbound_tokens where owner_user_id = ?`, [emp.userId]);
    expect(tokens).toEqual([{ id: expect.any(String), rotated_at: null }]);
    const audit = await sql(h, `select action from audit_log where token_id = ? and action like 'inbound.token.%'`, [tokens[0].id]);
    expect(audit.map((a) => a.action)).toEqual(['inbound.token.created']);
  });

  it('a bulk racing an explicit claim never rotates away the value the claim returned', async () => {
    const tools = await adminTools(h);
    const emps = await Promise.all(Array.from({ length: 6 }, () => approvedEmployee(h, tools)));
    const results = await Promise.all(
      emps.map(async (emp) => {
        const [c] = await Promise.all([
          claim(h, tools.token, { email: emp.email, daily_limit: 7 }),
          bulk(tools.token, { event: tpl(tools), recipients: [byEmail(emp)] }),
        ]);
        return { emp, c };
      }),
    );
    for (const { emp, c } of results) {
      expect(c.status).toBe(200);
      const [row] = await sql(h, `select token_hash, daily_limit from inbound_tokens where owner_user_id = ?`, [emp.userId]);
      expect(row.token_hash).toBe(createHash('sha256').update(c.body.token).digest('hex'));
      expect(row.daily_limit).toBe(7);
    }
  });
});

describe('dedup per (recipient, event_id)', () => {
  it('re-posting the template dedups each recipient; deliveries are distinct and readable only by each recipient token', async () => {
    const tools = await adminTools(h);
    const a = await claimedEmployee(h, tools);
    const b = await approvedEmployee(h, tools);
    const ev = tpl(tools);
    const first = await accepted(await bulk(tools.token, { event: ev, recipients: [byEmail(a.user), byEmail(b)] }));
    const second = await accepted(await bulk(tools.token, { event: { ...ev, title: 'Alert (again)' }, recipients: [byEmail(a.user), byEmail(b)] }));
    expect(first.map((r) => r.deduped)).toEqual([false, false]);
    expect(second.map((r) => [r.deduped, r.pushed])).toEqual([
      [true, false],
      [true, false],
    ]);
    // The second post found b's token: no second mint.
    expect(second[1]!.autoClaimed).toBeUndefined();
    expect(second.map((r) => r.deliveryId)).toEqual(first.map((r) => r.deliveryId));
    expect(first[0]!.deliveryId).not.toBe(first[1]!.deliveryId);
    const rows = await sql(h, `select recipient_user_id, fire_count from deliveries where id = any(?::uuid[])`, [
      `{${first.map((r) => r.deliveryId).join(',')}}`,
    ]);
    expect(rows.map((r) => r.fire_count)).toEqual([2, 2]);

    const bTok = (await claim(h, tools.token, { email: b.email })).body.token as string;
    const get = (id: string, token: string) => http(h, 'GET', `/api/v1/events/${id}`, { token });
    const aOwn = await get(first[0]!.deliveryId!, a.token);
    expect(aOwn.status).toBe(200);
    expect(aOwn.body).toMatchObject({ recipientUserId: a.user.userId, fireCount: 2 });
    expect((await get(first[1]!.deliveryId!, bTok)).status).toBe(200);
    expectProblem(await get(first[1]!.deliveryId!, a.token), 403);
    expectProblem(await get(first[0]!.deliveryId!, bTok), 403);
  });

  it('the same event_id sent singly by the recipient token is the same (token, event_id) as the bulk row', async () => {
    const tools = await adminTools(h);
    const a = await claimedEmployee(h, tools);
    const ev = tpl(tools);
    const [row] = await accepted(await bulk(tools.token, { event: ev, recipients: [byEmail(a.user)] }));
    const single = await http(h, 'POST', '/api/v1/events', { token: a.token, body: ev });
    expect(single.status).toBe(200);
    expect(single.body).toMatchObject({ deliveryId: row!.deliveryId, deduped: true, fireCount: 2 });
  });
});

describe('Idempotency-Key on bulk', () => {
  it('a replay with the same body returns the same envelope; a different body gives 409', async () => {
    const tools = await adminTools(h);
    const a = await claimedEmployee(h, tools);
    const b = await approvedEmployee(h, tools);
    const body = { event: tpl(tools), recipients: [byEmail(a.user), byEmail(b)] };
    const headers = { 'idempotency-key': `bulk-${tag()}` };
    const first = await bulk(tools.token, body, headers);
    const again = await bulk(tools.token, body, headers);
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.results).toEqual(first.body.results);
    const rows = await sql(h, `select fire_count from deliveries where id = any(?::uuid[])`, [
      `{${first.body.results.map((r: any) => r.deliveryId).join(',')}}`,
    ]);
    expect(rows.map((r) => r.fire_count)).toEqual([1, 1]);
    expectProblem(await bulk(tools.token, { ...body, recipients: [byEmail(a.user)] }, headers), 409);
  });
});

describe('template and request validation (400, nothing written)', () => {
  it('0 and 101 recipients give 400; 100 are accepted', async () => {
    const tools = await adminTools(h);
    const none = await bulk(tools.token, { event: tpl(tools), recipients: [] });
    expectProblem(none, 400, 'schema_invalid');
    expect(fieldCodes(none)).toEqual([{ field: 'recipients', code: 'too_few' }]);
    const many = (n: number) => Array.from({ length: n }, () => ({ type: 'email', email: uniqueEmail('ghost') }));
    const over = await bulk(tools.token, { event: tpl(tools), recipients: many(101) });
    expectProblem(over, 400, 'schema_invalid');
    expect(fieldCodes(over)).toEqual([{ field: 'recipients', code: 'too_many' }]);
    const full = await accepted(await bulk(tools.token, { event: tpl(tools), recipients: many(100) }));
    expect(full).toHaveLength(100);
    expect(full.every((r) => r.error === 'user_not_found')).toBe(true);
  });

  it('a template with recipient_hint or recipient gives 400', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const hint = await bulk(tools.token, { event: tpl(tools, { recipient_hint: { email: c.user.email } }), recipients: [byEmail(c.user)] });
    expectProblem(hint, 400, 'schema_invalid');
    expect(fieldCodes(hint)).toEqual([{ field: 'event.recipient_hint', code: 'recipient_hint_forbidden' }]);
    const rec = await bulk(tools.token, { event: tpl(tools, { recipient: { type: 'email', value: c.user.email } }), recipients: [byEmail(c.user)] });
    expectProblem(rec, 400, 'schema_invalid');
    expect(fieldCodes(rec)).toEqual([{ field: 'event.recipient', code: 'recipient_hint_forbidden' }]);
    expect(await sql(h, `select id from deliveries where recipient_user_id = ?`, [c.user.userId])).toEqual([]);
  });

  it('an event_type outside the integrator prefix gives 400 namespace_mismatch on event.event_type', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const r = await bulk(tools.token, { event: event(h, { event_type: 'personal.build.failed' }), recipients: [byEmail(c.user)] });
    expectProblem(r, 400, 'schema_invalid');
    expect(fieldCodes(r)).toEqual([{ field: 'event.event_type', code: 'namespace_mismatch' }]);
    expect(r.body.fieldErrors['event.event_type']).toHaveLength(1);
  });

  it('a forbidden key inside the event gives 400 forbidden_key; all issues are reported together', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const r = await bulk(tools.token, {
      event: tpl(tools, { body: 'secret text', title: '' }),
      recipients: [byEmail(c.user), { type: 'email', email: 'nope' }],
    });
    expectProblem(r, 400, 'schema_invalid');
    expect(fieldCodes(r)).toEqual(
      expect.arrayContaining([
        { field: 'event.body', code: 'forbidden_key' },
        { field: 'event.title', code: 'required' },
        { field: 'recipients[1].email', code: 'invalid_format' },
      ]),
    );
    expect(await sql(h, `select id from deliveries where recipient_user_id = ?`, [c.user.userId])).toEqual([]);
  });

  it('a missing event, a bad recipient type or an unknown top-level key gives 400', async () => {
    const tools = await adminTools(h);
    const r = await bulk(tools.token, { recipients: [{ type: 'phone', number: '1' }], extra: true });
    expectProblem(r, 400, 'schema_invalid');
    const fields = fieldCodes(r).map((f) => f.field);
    expect(fields).toEqual(expect.arrayContaining(['event', 'extra']));
    expect(fields.some((f) => f.startsWith('recipients[0]'))).toBe(true);
  });
});

describe('project_slug on the template', () => {
  it('a member recipient is delivered (with the project); a non-member row gets cross_project_blocked', async () => {
    const tools = await adminTools(h);
    const member = await claimedEmployee(h, tools);
    const outsider = await claimedEmployee(h, tools);
    const slug = await project([member.user]);
    const rows = await accepted(
      await bulk(tools.token, { event: tpl(tools, { project_slug: slug }), recipients: [byEmail(outsider.user), byEmail(member.user)] }),
    );
    expect(rows[0]).toEqual({ email: outsider.user.email, error: 'cross_project_blocked' });
    expect(rows[1]).toMatchObject({ email: member.user.email, deduped: false });
    const [d] = await sql(h, `select p.slug from deliveries d join projects p on p.id = d.project_id where d.id = ?`, [rows[1]!.deliveryId]);
    expect(d.slug).toBe(slug);
  });

  it('an unknown or archived project gives 403 cross_project_blocked for the whole request', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    expectProblem(
      await bulk(tools.token, { event: tpl(tools, { project_slug: `nope-${tag()}` }), recipients: [byEmail(c.user)] }),
      403,
      'cross_project_blocked',
    );
    const slug = await project([c.user]);
    await sql(h, `update projects set archived_at = now() where slug = ?`, [slug]);
    expectProblem(await bulk(tools.token, { event: tpl(tools, { project_slug: slug }), recipients: [byEmail(c.user)] }), 403, 'cross_project_blocked');
    expect(await sql(h, `select id from deliveries where recipient_user_id = ?`, [c.user.userId])).toEqual([]);
  });
});

describe('who may send bulk (tools-token only, admin-owned)', () => {
  it('a personal token (self-service or claimed) and an agent token get 401 token_mismatch', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const personal = await newPersonalToken(h);
    const body = { event: tpl(tools), recipients: [byEmail(c.user)] };
    expectProblem(await bulk(personal.token, { ...body, event: event(h) }), 401, 'token_mismatch', 'unauthorized');
    expectProblem(await bulk(c.token, body), 401, 'token_mismatch');
    const agent = await operator<{ token: string }>(h, 'agent_tokens.create', { email: c.user.email });
    expectProblem(await bulk(agent.token, body), 401, 'token_mismatch');
    expectProblem(await bulk(`svc-tools-${randomBytes(24).toString('base64url')}`, body), 401, 'token_not_found');
  });

  it('a tools-token whose owner is not admin gets 403 and writes nothing', async () => {
    const tools = await nonAdminTools(h);
    const emp = await approvedEmployee(h, { ...(await adminTools(h)), catalogSlug: tools.catalogSlug });
    const r = await bulk(tools.token, { event: tpl(tools), recipients: [byEmail(emp)] });
    expectProblem(r, 403, 'forbidden_admin_only', 'forbidden');
    expect(await sql(h, `select id from inbound_tokens where owner_user_id = ?`, [emp.userId])).toEqual([]);
  });

  it('a revoked tools-token gets 401 token_revoked', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    await sql(h, `update inbound_tokens set status = 'revoked' where id = ?`, [tools.tokenId]);
    expectProblem(await bulk(tools.token, { event: tpl(tools), recipients: [byEmail(c.user)] }), 401, 'token_revoked');
  });
});
