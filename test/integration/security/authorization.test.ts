// Authorization with the WRONG caller, through the real surfaces (SPEC Authentication 6-7,
// "Introspection and health", "Catalog item", Roles of `invite_user`): a personal token's event types
// are its owner's own, not the shared `personal` integrator's; fluxdeskInternalTypes lists only what
// fluxdesk's own integrator sent; a tools-token manages only its own integrator's catalog rows and
// links only its tokens; only a super admin offboards a super admin.
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { CatalogItemService, IntegratorService } from '../../../gen/fluxdesk/catalog/v1/catalog_pb.js';
import { ErrorInfoSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { EventTypesResponseSchema } from '../../../src/domain/events/list-event-types.js';
import { bearer, closeSessions, transportFor, type Protocol } from '../../helpers/connect.js';
import { event, http, newPersonalToken, newUser, operator, publish, publishLegacy, startHarness, type Harness } from '../../helpers/harness.js';
import { adminTools, approvedEmployee, claim, claimedEmployee, expectProblem, sql, tag, type ToolsFixture } from '../../helpers/tools.js';
import { toolFails, toolOk } from '../mcp/rpc.js';
import { agentWithRole } from '../mcp/admin-fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

function client<S extends Parameters<typeof createClient>[0]>(service: S, token: string, protocol: Protocol = 'connect'): Client<S> {
  return createClient(service, transportFor(h, protocol, [bearer(token)])) as Client<S>;
}
async function connectErrorOf(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}
const errorCode = (err: ConnectError) => err.findDetails(ErrorInfoSchema)[0]?.code;

async function eventTypes(token: string) {
  const r = await http(h, 'GET', '/api/v1/event-types', { token });
  expect(r.status, r.text).toBe(200);
  return EventTypesResponseSchema.parse(r.body);
}
const typeNames = (rows: Array<{ eventType: string }>) => rows.map((r) => r.eventType);

/** fluxdesk's own integrator (`internal-os`, operator-made) and a token that publishes as it. */
async function fluxdeskSender(): Promise<string> {
  const tools = await adminTools(h, { integrator: 'internal-os' });
  return (await claimedEmployee(h, tools)).token;
}

// First in the file: the built-in integrators do not exist yet on the fresh database, so the
// slug allocation alone must keep them from an admin.
describe("an admin cannot take fluxdesk's (or the personal) integrator slug", () => {
  it("an admin's agent cannot obtain fluxdesk's integrator (or the personal one) by label", async () => {
    expect(await sql(h, `select slug from integrators where slug in ('internal-os', 'personal')`)).toEqual([]);
    const admin = await agentWithRole(h, 'admin', ['admin:tokens']);
    for (const [label, reserved] of [
      ['Internal OS', 'internal-os'],
      ['personal', 'personal'],
    ] as const) {
      const out = await toolOk(h, admin.token, 'issue_admin_tools_claim_token', { label });
      expect(out.integrator_slug).not.toBe(reserved);
      expect(out.integrator_slug.startsWith(`${reserved}-`)).toBe(true);
      expect(out.allowed_event_prefix).not.toBe(`${reserved}.`);
    }
  });
});

describe("event types of a personal token are its owner's own", () => {
  it("REST and Connect: Alice does not see Bob's types, counts or times; each sees their own", async () => {
    const alice = await newPersonalToken(h);
    const bob = await newPersonalToken(h);
    const bobsSecond = await newPersonalToken(h, { user: bob.user });
    const secret = `personal.bob-private-${tag()}.layoffs`;
    expect((await publish(h, bob.token, event(h, { event_type: secret }))).status).toBe(202);
    expect((await publishLegacy(h, bobsSecond.token, event(h, { event_type: secret }))).status).toBe(202);
    const mine = `personal.alice-${tag()}.build`;
    expect((await publish(h, alice.token, event(h, { event_type: mine }))).status).toBe(202);

    const aliceView = await eventTypes(alice.token);
    expect(aliceView.yourIntegrator).toEqual({ slug: 'personal', allowedEventPrefix: 'personal.' });
    expect(aliceView.yourEventTypes).toEqual([{ eventType: mine, count: 1, lastSeenAt: expect.any(String) }]);
    // Bob sees both of his tokens' deliveries and nothing of Alice's.
    const bobView = await eventTypes(bob.token);
    expect(bobView.yourEventTypes).toEqual([{ eventType: secret, count: 2, lastSeenAt: expect.any(String) }]);
    expect(typeNames((await eventTypes(bobsSecond.token)).yourEventTypes)).toEqual([secret]);

    // IntegratorService/ListEventTypes applies the same rule (Connect and gRPC).
    for (const protocol of ['connect', 'grpc'] as const) {
      const out = await client(IntegratorService, alice.token, protocol).listEventTypes({});
      expect(
        out.yourEventTypes.map((r) => r.eventType),
        protocol,
      ).toEqual([mine]);
    }
    // A stranger with no deliveries sees none.
    expect((await eventTypes((await newPersonalToken(h)).token)).yourEventTypes).toEqual([]);
  });

  it("a claimed personal token sees its owner's deliveries, the integrator's tools-token all of them", async () => {
    const tools = await adminTools(h);
    const a = await claimedEmployee(h, tools);
    const b = await claimedEmployee(h, tools);
    expect((await publish(h, a.token, event(h, { event_type: `${tools.prefix}a.only` }))).status).toBe(202);
    expect((await publish(h, b.token, event(h, { event_type: `${tools.prefix}b.only` }))).status).toBe(202);
    expect(typeNames((await eventTypes(a.token)).yourEventTypes)).toEqual([`${tools.prefix}a.only`]);
    expect(typeNames((await eventTypes(b.token)).yourEventTypes)).toEqual([`${tools.prefix}b.only`]);
    expect(typeNames((await eventTypes(tools.token)).yourEventTypes)).toEqual([`${tools.prefix}a.only`, `${tools.prefix}b.only`]);
  });
});

describe("fluxdeskInternalTypes lists only fluxdesk's own events", () => {
  it("a user token may still send internal-os.* on the older endpoint, but it stays the sender's own type", async () => {
    const sender = await newPersonalToken(h);
    const forged = `internal-os.${tag()}.maintenance`;
    // The older endpoint does not gate the namespace: accepted and delivered to the sender.
    expect((await publishLegacy(h, sender.token, event(h, { event_type: forged }))).status).toBe(202);
    // /api/v1/events gates it.
    expectProblem(await publish(h, sender.token, event(h, { event_type: forged })), 400, 'schema_invalid');

    const own = `internal-os.${tag()}.deploy`;
    expect((await publish(h, await fluxdeskSender(), event(h, { event_type: own }))).status).toBe(202);

    const tools = await adminTools(h);
    const viewers = [sender.token, tools.token, (await claimedEmployee(h, tools)).token, (await newPersonalToken(h)).token];
    for (const token of viewers) {
      const internal = typeNames((await eventTypes(token)).fluxdeskInternalTypes);
      expect(internal, token.slice(0, 12)).toContain(own);
      expect(internal, token.slice(0, 12)).not.toContain(forged);
    }
    const connectView = await client(IntegratorService, tools.token).listEventTypes({});
    expect(connectView.fluxdeskInternalTypes.map((r) => r.eventType)).toContain(own);
    expect(connectView.fluxdeskInternalTypes.map((r) => r.eventType)).not.toContain(forged);
    // The sender sees its event among its own types.
    expect(typeNames((await eventTypes(sender.token)).yourEventTypes)).toEqual([forged]);
  });
});

describe("a tools-token manages only its own integrator's catalog rows", () => {
  const patch = (token: string, slug: string, body: unknown) => http(h, 'PATCH', `/api/v1/catalog/items/${encodeURIComponent(slug)}`, { token, body });
  const del = (token: string, slug: string, query = '') => http(h, 'DELETE', `/api/v1/catalog/items/${encodeURIComponent(slug)}${query}`, { token });
  const rowOf = async (slug: string) => (await sql(h, `select * from catalog_items where slug = ?`, [slug]))[0];

  async function twoIntegrators(): Promise<{ a: ToolsFixture; b: ToolsFixture }> {
    return { a: await adminTools(h), b: await adminTools(h) };
  }

  it("REST: B cannot take over A's row, edit or delete it, and cannot then claim A's employees", async () => {
    const { a, b } = await twoIntegrators();
    const employee = await approvedEmployee(h, a);
    const before = await rowOf(a.catalogSlug);

    expectProblem(await patch(b.token, a.catalogSlug, { linked_tools_token_id: b.tokenId }), 403, 'catalog_item_not_owned', 'forbidden');
    expectProblem(await patch(b.token, a.catalogSlug, { name: 'Hijacked' }), 403, 'catalog_item_not_owned');
    expectProblem(await del(b.token, a.catalogSlug), 403, 'catalog_item_not_owned');
    expectProblem(await del(b.token, a.catalogSlug, '?hard=true'), 403, 'catalog_item_not_owned');
    expect(await rowOf(a.catalogSlug)).toEqual(before);

    // The takeover's purpose: claims for employees approved only for A stay A's.
    expectProblem(await claim(h, b.token, { email: employee.email }), 403, 'no_approved_request');
    expect((await claim(h, a.token, { email: employee.email })).status).toBe(200);
    // A itself still manages its row.
    expect((await patch(a.token, a.catalogSlug, { name: 'Renamed by A' })).status).toBe(200);
  });

  it("REST: linked_tools_token_id never names another integrator's tools-token", async () => {
    const { a, b } = await twoIntegrators();
    const slug = `${b.integratorSlug}.${tag()}`;
    // Create: a row of B linked to A's token would be A's row, made by B.
    expectProblem(
      await http(h, 'POST', '/api/v1/catalog/items', { token: b.token, body: { slug, name: 'x', type: 'api_key', linked_tools_token_id: a.tokenId } }),
      403,
      'tools_token_not_owned',
    );
    expect(await rowOf(slug)).toBeUndefined();
    // Patch of B's own row: moving it to A is refused too; nothing changes.
    const own = await rowOf(b.catalogSlug);
    expectProblem(await patch(b.token, b.catalogSlug, { linked_tools_token_id: a.tokenId }), 403, 'tools_token_not_owned');
    expect(await rowOf(b.catalogSlug)).toEqual(own);

    // A row without an owner is shared: B may edit it, but not adopt it by linking its token.
    const shared = `shared-${tag()}`;
    expect((await http(h, 'POST', '/api/v1/catalog/items', { token: a.token, body: { slug: shared, name: 'Shared', type: 'saas_account' } })).status).toBe(201);
    expect((await patch(b.token, shared, { description: 'edited by B' })).status).toBe(200);
    expectProblem(await patch(b.token, shared, { linked_tools_token_id: b.tokenId }), 403, 'tools_token_not_owned');
    expect((await rowOf(shared)).integrator_id).toBeNull();

    // Allowed: a new row linked to the caller's own token, and a second token of the same integrator.
    const mine = `${b.integratorSlug}.${tag()}`;
    expect(
      (await http(h, 'POST', '/api/v1/catalog/items', { token: b.token, body: { slug: mine, name: 'y', type: 'api_key', linked_tools_token_id: b.tokenId } }))
        .status,
    ).toBe(201);
    const b2 = await adminTools(h, { integrator: b.integratorSlug });
    const relinked = await patch(b.token, mine, { linked_tools_token_id: b2.tokenId });
    expect(relinked.status, relinked.text).toBe(200);
    expect(relinked.body.item.linked_tools_token_id).toBe(b2.tokenId);
  });

  it('Connect CatalogItemService refuses the same with PermissionDenied', async () => {
    const { a, b } = await twoIntegrators();
    const before = await rowOf(a.catalogSlug);
    const items = client(CatalogItemService, b.token);
    const take = await connectErrorOf(items.updateItem({ slug: a.catalogSlug, linkedToolsTokenId: b.tokenId }));
    expect(take.code).toBe(Code.PermissionDenied);
    expect(errorCode(take)).toBe('catalog_item_not_owned');
    const gone = await connectErrorOf(items.deleteItem({ slug: a.catalogSlug, hard: true }));
    expect(gone.code).toBe(Code.PermissionDenied);
    const link = await connectErrorOf(items.createItem({ slug: `${b.integratorSlug}.${tag()}`, name: 'x', type: 'api_key', linkedToolsTokenId: a.tokenId }));
    expect(link.code).toBe(Code.PermissionDenied);
    expect(errorCode(link)).toBe('tools_token_not_owned');
    expect(await rowOf(a.catalogSlug)).toEqual(before);
  });

  it("MCP catalog_item_update: an admin never moves an integrator's row to another integrator; an unowned row links only to the admin's own token (a super admin: any)", async () => {
    const { a } = await twoIntegrators();
    const admin = await agentWithRole(h, 'admin', ['admin:catalog', 'admin:tokens']);
    const own = await toolOk(h, admin.token, 'issue_admin_tools_claim_token', { label: `mine ${tag()}` });
    const before = await rowOf(a.catalogSlug);
    const moved = await toolFails(h, admin.token, 'catalog_item_update', { slug: a.catalogSlug, linked_tools_token_id: own.token_id });
    expect(moved.error).toMatch(/^FORBIDDEN: linked_tools_token_id/);
    expect(await rowOf(a.catalogSlug)).toEqual(before);

    const shared = `shared-${tag()}`;
    await toolOk(h, admin.token, 'catalog_item_create', { slug: shared, name: 'Shared', type: 'other' });
    const foreign = await toolFails(h, admin.token, 'catalog_item_update', { slug: shared, linked_tools_token_id: a.tokenId });
    expect(foreign.error).toMatch(/^FORBIDDEN: linked_tools_token_id/);
    expect((await rowOf(shared)).linked_tools_token_id).toBeNull();
    expect((await toolOk(h, admin.token, 'catalog_item_update', { slug: shared, linked_tools_token_id: own.token_id })).item.linked_tools_token_id).toBe(
      own.token_id,
    );

    const shared2 = `shared-${tag()}`;
    const root = await agentWithRole(h, 'super_admin', ['admin:catalog']);
    await toolOk(h, root.token, 'catalog_item_create', { slug: shared2, name: 'Shared 2', type: 'other' });
    expect((await toolOk(h, root.token, 'catalog_item_update', { slug: shared2, linked_tools_token_id: a.tokenId })).item.linked_tools_token_id).toBe(
      a.tokenId,
    );
    // Org-wide administration of other fields stays with admins.
    expect((await toolOk(h, admin.token, 'catalog_item_update', { slug: a.catalogSlug, description: 'reviewed' })).item.description).toBe('reviewed');
  });
});

describe('only a super admin offboards a super admin', () => {
  const account = (token: string, protocol: Protocol = 'connect') => client(AccountService, token, protocol);

  it('an admin gets PermissionDenied (Connect and gRPC) and nothing changes; a super admin succeeds', async () => {
    const root = await newUser(h, 'super_admin');
    const rootToken = await operator<{ token: string }>(h, 'agent_tokens.create', { email: root.email });
    const rootPersonal = await newPersonalToken(h, { user: root });
    const admin = await agentWithRole(h, 'admin', ['admin:users']);

    for (const protocol of ['connect', 'grpc'] as const) {
      const err = await connectErrorOf(account(admin.token, protocol).offboardUser({ email: root.email }));
      expect(err.code, protocol).toBe(Code.PermissionDenied);
      expect(errorCode(err)).toBe('permission_denied');
    }
    expect(await sql(h, `select status from users where id = ?`, [root.userId])).toEqual([{ status: 'active' }]);
    expect(await sql(h, `select status from inbound_tokens where owner_user_id = ?`, [root.userId])).toEqual([{ status: 'active' }]);
    expect(await sql(h, `select count(*)::int as n from agent_tokens where user_id = ? and revoked_at is null`, [root.userId])).toEqual([{ n: 1 }]);
    expect((await publish(h, rootPersonal.token, event(h))).status).toBe(202);

    // An admin still offboards an admin; a super admin offboards a super admin.
    const peer = await newUser(h, 'admin');
    expect((await account(admin.token).offboardUser({ email: peer.email })).status).toBe('offboarded');
    const other = await agentWithRole(h, 'super_admin', ['admin:users']);
    const out = await account(other.token).offboardUser({ email: root.email });
    expect(out).toMatchObject({ userId: root.userId, status: 'offboarded', tokensRevoked: 2 });
    expect((await connectErrorOf(account(rootToken.token).listPersonalTokens({}))).code).toBe(Code.Unauthenticated);
  });
});
