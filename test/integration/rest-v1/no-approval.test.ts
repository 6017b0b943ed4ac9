// The optional 422 inbound-no-approval on POST /api/v1/events (SPEC section A paragraph, Errors
// "inbound-no-approval body", "Sender reactions"): only when the personal token is unknown AND an
// admin tools-token in X-Caller-Tools-Token names (target_email) an existing user without an
// approval for its catalog row. Every other case is the plain 401, revealing nothing.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, newPersonalToken, newUser, publish, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';
import {
  adminTools,
  approvedEmployee,
  claimedEmployee,
  expectProblem,
  nonAdminTools,
  pendingRequest,
  sql,
  unknownPersonalToken,
  type ToolsFixture,
} from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const ev = (tools: ToolsFixture, over: Record<string, unknown> = {}) => event(h, { event_type: `${tools.prefix}ticket.opened`, ...over });
/** `header` null sends no X-Caller-Tools-Token. */
const probe = (tools: ToolsFixture, targetEmail: string | undefined, header: string | null = tools.token, token = unknownPersonalToken()) =>
  publish(
    h,
    token,
    ev(tools, targetEmail === undefined ? {} : { target_email: targetEmail }),
    header === null ? undefined : { 'x-caller-tools-token': header },
  );

/** The plain 401 with nothing about the target. */
function expectPlain401(r: Awaited<ReturnType<typeof publish>>, code = 'token_not_found') {
  expectProblem(r, 401, code, 'unauthorized');
  expect(r.body.target_email).toBeUndefined();
  expect(r.body.catalog_slug).toBeUndefined();
}
const comparable = (r: Awaited<ReturnType<typeof publish>>) => {
  const { requestId: _r, ...rest } = r.body;
  return rest;
};

describe('422 inbound-no-approval', () => {
  it('an existing user without an approval: 422 with target_email and catalog_slug', async () => {
    const tools = await adminTools(h);
    const target = await newUser(h);
    const r = await probe(tools, target.email.toUpperCase());
    expectProblem(r, 422, 'inbound_no_approval', 'inbound-no-approval');
    expect(r.body).toMatchObject({
      status: 422,
      title: expect.any(String),
      detail: expect.any(String),
      requestId: r.headers.get('x-request-id'),
      target_email: target.email,
      catalog_slug: tools.catalogSlug,
    });
    // Nothing was written.
    expect(await sql(h, `select id from deliveries where recipient_user_id = ?`, [target.userId])).toEqual([]);
  });

  it('a pending application is not an approval: still 422', async () => {
    const tools = await adminTools(h);
    const target = await newUser(h);
    await pendingRequest(h, target.email, tools.catalogSlug);
    expectProblem(await probe(tools, target.email), 422, 'inbound_no_approval');
  });

  it('an approval for ANOTHER integrator does not count: 422 names this tools-token catalog row', async () => {
    const tools = await adminTools(h);
    const other = await adminTools(h);
    const target = await approvedEmployee(h, other);
    const r = await probe(tools, target.email);
    expectProblem(r, 422, 'inbound_no_approval');
    expect(r.body.catalog_slug).toBe(tools.catalogSlug);
  });
});

describe('every failed precondition is the plain 401', () => {
  it('no X-Caller-Tools-Token header, or no target_email', async () => {
    const tools = await adminTools(h);
    const target = await newUser(h);
    expectPlain401(await probe(tools, target.email, null));
    expectPlain401(await probe(tools, undefined));
    expectPlain401(await probe(tools, ''));
  });

  it('a bad tools-token: unknown, malformed, a personal token, revoked', async () => {
    const tools = await adminTools(h);
    const target = await newUser(h);
    expectPlain401(await probe(tools, target.email, `svc-tools-${randomBytes(24).toString('base64url')}`));
    expectPlain401(await probe(tools, target.email, 'garbage'));
    expectPlain401(await probe(tools, target.email, (await newPersonalToken(h)).token));
    await sql(h, `update inbound_tokens set status = 'revoked' where id = ?`, [tools.tokenId]);
    expectPlain401(await probe(tools, target.email));
  });

  it('a tools-token whose owner is not admin', async () => {
    const tools = await nonAdminTools(h);
    const target = await newUser(h);
    expectPlain401(await probe(tools, target.email));
  });

  it('an unknown target user and an already-approved target give the same 401 body', async () => {
    const tools = await adminTools(h);
    const approved = await approvedEmployee(h, tools);
    const unknown = await probe(tools, uniqueEmail('ghost'));
    const known = await probe(tools, approved.email);
    expectPlain401(unknown);
    expectPlain401(known);
    expect(comparable(known)).toEqual(comparable(unknown));
  });

  it('a personal token that exists but is revoked keeps its own 401 (token_revoked), never 422', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const target = await newUser(h);
    await sql(h, `update inbound_tokens set status = 'revoked' where id = ?`, [c.tokenId]);
    expectPlain401(await probe(tools, target.email, tools.token, c.token), 'token_revoked');
  });
});

describe('a valid personal token with target_email', () => {
  it('publishes normally (202); target_email is ignored and not stored', async () => {
    const tools = await adminTools(h);
    const c = await claimedEmployee(h, tools);
    const target = await newUser(h);
    const r = await publish(h, c.token, ev(tools, { target_email: target.email }), { 'x-caller-tools-token': tools.token });
    expect(r.status, r.text).toBe(202);
    expect(r.body.recipientUserId).toBe(c.user.userId);
    const [row] = await sql(h, `select row_to_json(d)::text as j from deliveries d where id = ?`, [r.body.deliveryId]);
    expect(row.j).not.toContain(target.email);
    expect(JSON.stringify(r.body)).not.toContain(target.email);

    const self = await newPersonalToken(h);
    const s = await publish(h, self.token, event(h, { target_email: target.email }));
    expect(s.status, s.text).toBe(202);
    expect(s.body.recipientUserId).toBe(self.user.userId);
  });
});
