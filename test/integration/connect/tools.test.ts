// Tools-token operations over Connect (one flow also over gRPC and gRPC-Web): ToolsTokenService,
// CatalogApprovalService, CatalogItemService, IntegratorService and EventService.PublishBulk call
// the same operations as the REST v1 routes (SPEC "Token requests and results", "Catalog
// approval", "Catalog item", BulkEventRequest, "Introspection and health").
import { randomBytes } from 'node:crypto';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import type { DescService } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema, ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { CatalogApprovalService, CatalogItemService, IntegratorService } from '../../../gen/fluxdesk/catalog/v1/catalog_pb.js';
import { EventService } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import { Health, HealthCheckResponse_ServingStatus } from '../../../gen/grpc/health/v1/health_pb.js';
import { ToolsTokenService } from '../../../gen/fluxdesk/tokens/v1/tokens_pb.js';
import { bearer, closeSessions, eventClient, protoEvent, transportFor, type Protocol } from '../../helpers/connect.js';
import { newPersonalToken, newUser, operator, startHarness, uniqueEmail, type Harness, type TestUser } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const DAY_MS = 24 * 60 * 60 * 1000;

function client<S extends DescService>(service: S, token?: string, protocol: Protocol = 'connect'): Client<S> {
  return createClient(service, transportFor(h, protocol, [bearer(token)]));
}

async function connectErrorOf(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}
const errorInfo = (err: ConnectError) => err.findDetails(ErrorInfoSchema)[0];
const violations = (err: ConnectError) => err.findDetails(ValidationErrorDetailSchema)[0]?.violations.map((v) => [v.field, v.code]) ?? [];
const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params);
const tsMs = (t: { seconds: bigint; nanos: number } | undefined) => Number(t!.seconds) * 1000 + Math.floor(t!.nanos / 1e6);
/** The harness clock follows real time (plus an offset): server stamps fall between two readings. */
const expectBetween = (ms: number, from: number, to: number) => {
  expect(ms).toBeGreaterThanOrEqual(from);
  expect(ms).toBeLessThanOrEqual(to);
};

interface Tools {
  admin: TestUser;
  token: string;
  tokenId: string;
  integratorSlug: string;
  catalogSlug: string;
}

/** An admin with a tools-token of a fresh integrator (each test its own: 60 calls/min per token). */
async function adminTools(): Promise<Tools> {
  const admin = await operator<TestUser>(h, 'users.create', { email: uniqueEmail('admin'), name: 'Admin', role: 'admin' });
  const integrator = `it-${randomBytes(4).toString('hex')}`;
  const t = await operator<{ token: string; tokenId: string; integratorSlug: string; catalogSlug: string }>(h, 'tokens.create_tools', {
    owner: admin.email,
    integrator,
    name: `tools ${integrator}`,
  });
  return { admin, ...t };
}

/** A fresh employee approved for the integrator's catalog row, through AssignApproval. */
async function approvedEmployee(tools: Tools): Promise<TestUser & { approvalId: string }> {
  const u = await newUser(h);
  const { approval } = await client(CatalogApprovalService, tools.token).assignApproval({ email: u.email, catalogSlug: tools.catalogSlug });
  return { ...u, approvalId: approval!.id };
}

describe('ToolsTokenService', () => {
  it('ClaimToken mints, then rotates with a 24 h overlap; the claimed token publishes', async () => {
    const tools = await adminTools();
    const emp = await approvedEmployee(tools);
    const tokens = client(ToolsTokenService, tools.token);

    let before = h.clock.now().getTime();
    const minted = await tokens.claimToken({ email: emp.email.toUpperCase(), label: 'CI alerts', dailyLimit: 200, severityCeiling: 'warn' });
    expect(minted.rotated).toBe(false);
    expect(minted.token).toMatchObject({ ownerUserId: emp.userId });
    expect(minted.token!.token).toMatch(/^svc-in-pers-[A-Za-z0-9_-]{32}$/);
    expect(minted.token!.tokenId).toMatch(/^[0-9a-f-]{36}$/);
    expectBetween(tsMs(minted.token!.expiresPriorAt), before, h.clock.now().getTime());

    before = h.clock.now().getTime();
    const rotated = await tokens.claimToken({ email: emp.email });
    expect(rotated.rotated).toBe(true);
    expect(rotated.token!.tokenId).toBe(minted.token!.tokenId);
    expect(rotated.token!.token).not.toBe(minted.token!.token);
    expectBetween(tsMs(rotated.token!.expiresPriorAt), before + DAY_MS, h.clock.now().getTime() + DAY_MS);

    // Both values work during the overlap; events land in the employee's inbox.
    for (const value of [rotated.token!.token, minted.token!.token]) {
      const { delivery } = await eventClient(h, 'connect', value).publish({ event: protoEvent(h, { eventType: `${tools.integratorSlug}.build.failed` }) });
      expect(delivery!.recipientUserId).toBe(emp.userId);
    }
  });

  it('ClaimTokenBatch answers one row per claim, in order; failed rows carry a reason', async () => {
    const tools = await adminTools();
    const ok = await approvedEmployee(tools);
    const unapproved = await newUser(h);
    const unknown = uniqueEmail('nobody');
    const out = await client(ToolsTokenService, tools.token).claimTokenBatch(
      { claims: [{ email: ok.email }, { email: unapproved.email }, { email: unknown, label: 'x' }] },
      { headers: { 'x-request-id': 'batch-1' } },
    );
    expect(out.requestId).toBe('batch-1');
    expect(out.results.map((r) => [r.email, r.ok, r.reason])).toEqual([
      [ok.email, true, undefined],
      [unapproved.email, false, 'no_approved_request'],
      [unknown, false, 'user_not_found'],
    ]);
    expect(out.results[0]!.token).toMatchObject({ ownerUserId: ok.userId });
    expect(out.results[1]!.token).toBeUndefined();
  });

  it('ClaimTokenBatch validates every claim: InvalidArgument with proto paths', async () => {
    const tools = await adminTools();
    const err = await connectErrorOf(
      client(ToolsTokenService, tools.token).claimTokenBatch({ claims: [{ email: 'not-an-email' }, { email: uniqueEmail(), dailyLimit: 0 }] }),
    );
    expect(err.code).toBe(Code.InvalidArgument);
    expect(
      violations(err)
        .map(([f]) => f)
        .sort(),
    ).toEqual(['claims.0.email', 'claims.1.daily_limit']);
    const empty = await connectErrorOf(client(ToolsTokenService, tools.token).claimTokenBatch({ claims: [] }));
    expect(violations(empty).map(([f]) => f)).toEqual(['claims']);
  });

  it('Ping describes the tools-token (no admin needed)', async () => {
    const tools = await adminTools();
    const before = h.clock.now().getTime();
    const pong = await client(ToolsTokenService, tools.token).ping({});
    expect(pong).toMatchObject({
      ok: true,
      kind: 'tools_claim',
      toolsTokenId: tools.tokenId,
      label: `tools ${tools.integratorSlug}`,
      owner: tools.admin.email,
    });
    expectBetween(tsMs(pong.now), before, h.clock.now().getTime());
  });

  it.each(['grpc', 'grpc-web'] as const)('ClaimToken and Ping over %s', async (protocol) => {
    const tools = await adminTools();
    const emp = await approvedEmployee(tools);
    const tokens = client(ToolsTokenService, tools.token, protocol);
    const out = await tokens.claimToken({ email: emp.email });
    expect(out).toMatchObject({ rotated: false, token: { ownerUserId: emp.userId } });
    expect((await tokens.ping({})).toolsTokenId).toBe(tools.tokenId);
    const err = await connectErrorOf(client(ToolsTokenService, tools.token, protocol).claimToken({ email: (await newUser(h)).email }));
    expect(err.code).toBe(Code.PermissionDenied);
    expect(errorInfo(err)?.code).toBe('no_approved_request');
  });
});

describe('ToolsTokenService errors', () => {
  it('a personal token: Unauthenticated with ErrorInfo code token_mismatch', async () => {
    const t = await newPersonalToken(h);
    for (const call of [() => client(ToolsTokenService, t.token).ping({}), () => client(ToolsTokenService, t.token).claimToken({ email: t.user.email })]) {
      const err = await connectErrorOf(call());
      expect(err.code).toBe(Code.Unauthenticated);
      expect(errorInfo(err)).toMatchObject({ code: 'token_mismatch', type: 'unauthorized' });
    }
  });

  it('a tools-token whose owner is no longer admin: PermissionDenied forbidden_admin_only on every call, Ping included', async () => {
    const tools = await adminTools();
    await sql(`update users set role = 'member' where id = ?`, [tools.admin.userId]);
    const tokens = client(ToolsTokenService, tools.token);
    const err = await connectErrorOf(tokens.claimToken({ email: (await newUser(h)).email }));
    expect(err.code).toBe(Code.PermissionDenied);
    expect(errorInfo(err)).toMatchObject({ code: 'forbidden_admin_only', type: 'forbidden' });
    for (const call of [
      () => tokens.claimTokenBatch({ claims: [{ email: uniqueEmail() }] }),
      () => client(CatalogApprovalService, tools.token).listApprovals({}),
      () => client(IntegratorService, tools.token).listIntegrators({}),
      () => tokens.ping({}),
      () =>
        client(EventService, tools.token).publishBulk({
          event: protoEvent(h, { eventType: `${tools.integratorSlug}.x` }),
          recipients: [{ type: 'email', email: uniqueEmail() }],
        }),
    ]) {
      expect((await connectErrorOf(call())).code).toBe(Code.PermissionDenied);
    }
  });

  it('an employee without an approved request: PermissionDenied with ErrorInfo code no_approved_request', async () => {
    const tools = await adminTools();
    const emp = await newUser(h);
    const err = await connectErrorOf(client(ToolsTokenService, tools.token).claimToken({ email: emp.email }));
    expect(err.code).toBe(Code.PermissionDenied);
    expect(errorInfo(err)).toMatchObject({ code: 'no_approved_request', type: 'forbidden' });
    expect(errorInfo(err)?.metadata.email).toBe(emp.email);
  });

  it('an unknown email: FailedPrecondition with ErrorInfo type user-not-found', async () => {
    const tools = await adminTools();
    const email = uniqueEmail('ghost');
    for (const call of [
      () => client(ToolsTokenService, tools.token).claimToken({ email }),
      () => client(CatalogApprovalService, tools.token).assignApproval({ email, catalogSlug: tools.catalogSlug }),
      () => client(CatalogApprovalService, tools.token).revokeApproval({ email, catalogSlug: tools.catalogSlug }),
    ]) {
      const err = await connectErrorOf(call());
      expect(err.code).toBe(Code.FailedPrecondition);
      expect(errorInfo(err)).toMatchObject({ code: 'user_not_found', type: 'user-not-found', metadata: { email } });
    }
  });

  it('an invalid claim: InvalidArgument listing every field', async () => {
    const tools = await adminTools();
    const err = await connectErrorOf(
      client(ToolsTokenService, tools.token).claimToken({ email: 'nope', dailyLimit: 1001, severityCeiling: 'loud', label: '' }),
    );
    expect(err.code).toBe(Code.InvalidArgument);
    expect(errorInfo(err)).toMatchObject({ code: 'schema_invalid', type: 'validation-failed' });
    expect(
      violations(err)
        .map(([f]) => f)
        .sort(),
    ).toEqual(['daily_limit', 'email', 'label', 'severity_ceiling']);
  });
});

describe('CatalogApprovalService', () => {
  it('AssignApproval (idempotent), ListApprovals with filters, RevokeApproval cascades to claimed tokens', async () => {
    const tools = await adminTools();
    const emp = await newUser(h);
    const approvals = client(CatalogApprovalService, tools.token);

    const { approval } = await approvals.assignApproval({ email: emp.email, catalogSlug: tools.catalogSlug });
    expect(approval).toMatchObject({ email: emp.email, catalogSlug: tools.catalogSlug, status: 'approved', reviewedByEmail: tools.admin.email });
    expect(approval!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(approval!.requestedAt).toBeDefined();
    expect(approval!.reviewedAt).toBeDefined();
    const again = await approvals.assignApproval({ email: emp.email, catalogSlug: tools.catalogSlug });
    expect(again.approval!.id).toBe(approval!.id);

    const listed = await approvals.listApprovals({ email: emp.email }, { headers: { 'x-request-id': 'list-1' } });
    expect(listed.requestId).toBe('list-1');
    expect(listed.items.map((i) => [i.id, i.status])).toEqual([[approval!.id, 'approved']]);
    expect((await approvals.listApprovals({ email: emp.email, status: 'pending' })).items).toEqual([]);
    expect((await approvals.listApprovals({ catalogSlug: tools.catalogSlug, status: 'approved' })).items.map((i) => i.email)).toContain(emp.email);

    const claimed = await client(ToolsTokenService, tools.token).claimToken({ email: emp.email });
    const revoked = await approvals.revokeApproval({ email: emp.email, catalogSlug: tools.catalogSlug, notifyEmployee: false });
    expect(revoked).toMatchObject({ revoked: true, tokensInvalidated: 1 });
    const repeat = await approvals.revokeApproval({ email: emp.email, catalogSlug: tools.catalogSlug });
    expect(repeat).toMatchObject({ revoked: false, tokensInvalidated: 0 });
    expect((await approvals.listApprovals({ email: emp.email })).items.map((i) => i.status)).toEqual(['revoked']);

    const err = await connectErrorOf(
      eventClient(h, 'connect', claimed.token!.token).publish({ event: protoEvent(h, { eventType: `${tools.integratorSlug}.x` }) }),
    );
    expect(err.code).toBe(Code.Unauthenticated);
    expect(errorInfo(err)?.code).toBe('token_revoked');
  });

  it('ReviewApproval approves or rejects a pending request; a second review is Aborted not_pending', async () => {
    const tools = await adminTools();
    const approvals = client(CatalogApprovalService, tools.token);
    const [a, b] = [await newUser(h), await newUser(h)];
    const ra = await operator<{ requestId: string }>(h, 'catalog.requests.create', { email: a.email, catalog_slug: tools.catalogSlug });
    const rb = await operator<{ requestId: string }>(h, 'catalog.requests.create', { email: b.email, catalog_slug: tools.catalogSlug });
    const pending = await approvals.listApprovals({ catalogSlug: tools.catalogSlug, status: 'pending' });
    expect(pending.items.map((i) => i.id).sort()).toEqual([ra.requestId, rb.requestId].sort());
    expect(pending.items[0]!.reviewedAt).toBeUndefined();
    expect(pending.items[0]!.reviewedByEmail).toBeUndefined();

    const approved = await approvals.reviewApproval({ requestId: ra.requestId, decision: 'approve', note: 'ok' });
    expect(approved.approval).toMatchObject({ id: ra.requestId, email: a.email, status: 'approved', reviewedByEmail: tools.admin.email });
    expect(approved.approval!.reviewedAt).toBeDefined();
    const rejected = await approvals.reviewApproval({ requestId: rb.requestId, decision: 'reject' });
    expect(rejected.approval).toMatchObject({ id: rb.requestId, status: 'rejected' });

    // The approved employee can now be claimed for.
    expect((await client(ToolsTokenService, tools.token).claimToken({ email: a.email })).token!.ownerUserId).toBe(a.userId);

    const twice = await connectErrorOf(approvals.reviewApproval({ requestId: ra.requestId, decision: 'reject' }));
    expect(twice.code).toBe(Code.Aborted);
    expect(errorInfo(twice)?.code).toBe('not_pending');
    const bad = await connectErrorOf(approvals.reviewApproval({ requestId: 'nope', decision: 'maybe' }));
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(
      violations(bad)
        .map(([f]) => f)
        .sort(),
    ).toEqual(['decision', 'request_id']);
    const missing = await connectErrorOf(approvals.reviewApproval({ requestId: '00000000-0000-4000-8000-000000000000', decision: 'approve' }));
    expect(missing.code).toBe(Code.NotFound);
  });

  it('AssignApproval for an unknown catalog row: NotFound', async () => {
    const tools = await adminTools();
    const err = await connectErrorOf(
      client(CatalogApprovalService, tools.token).assignApproval({ email: (await newUser(h)).email, catalogSlug: 'no-such-row' }),
    );
    expect(err.code).toBe(Code.NotFound);
  });
});

describe('IntegratorService', () => {
  it('ListIntegrators lists the registry', async () => {
    const tools = await adminTools();
    const out = await client(IntegratorService, tools.token).listIntegrators({});
    expect(out.totalCount).toBe(out.items.length);
    expect(out.requestId).toMatch(/^req_/);
    const mine = out.items.find((i) => i.slug === tools.integratorSlug);
    expect(mine).toMatchObject({ slug: tools.integratorSlug, allowedEventPrefix: `${tools.integratorSlug}.` });
    expect(mine!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(mine!.createdAt).toBeDefined();
  });

  it("ListEventTypes reports the integrator's types seen in 90 days, for a tools-token and a claimed personal token", async () => {
    const tools = await adminTools();
    const emp = await approvedEmployee(tools);
    const { token } = await client(ToolsTokenService, tools.token).claimToken({ email: emp.email });
    const type = `${tools.integratorSlug}.deploy.finished`;
    const events = eventClient(h, 'connect', token!.token);
    await events.publish({ event: protoEvent(h, { eventType: type }) });
    await events.publish({ event: protoEvent(h, { eventType: type }) });

    for (const caller of [tools.token, token!.token]) {
      const out = await client(IntegratorService, caller).listEventTypes({});
      expect(out.yourIntegrator).toMatchObject({ slug: tools.integratorSlug, allowedEventPrefix: `${tools.integratorSlug}.` });
      expect(out.yourEventTypes.map((r) => [r.eventType, r.count])).toEqual([[type, 2n]]);
      expect(out.yourEventTypes[0]!.lastSeenAt).toBeDefined();
      expect(Array.isArray(out.fluxdeskInternalTypes)).toBe(true);
    }

    // Another integrator's types: admin tools-token only; an unknown one is NotFound.
    const other = await adminTools();
    const theirs = await client(IntegratorService, other.token).listEventTypes({ integratorSlug: tools.integratorSlug });
    expect(theirs.yourIntegrator!.slug).toBe(tools.integratorSlug);
    const denied = await connectErrorOf(client(IntegratorService, token!.token).listEventTypes({ integratorSlug: other.integratorSlug }));
    expect(denied.code).toBe(Code.PermissionDenied);
    expect(errorInfo(denied)?.code).toBe('forbidden_admin_only');
    expect((await connectErrorOf(client(IntegratorService, other.token).listEventTypes({ integratorSlug: 'no-such-integrator' }))).code).toBe(Code.NotFound);
  });
});

describe('EventService.PublishBulk', () => {
  it('fans out with auto-claim; per-recipient errors; a repeat is deduped', async () => {
    const tools = await adminTools();
    const approved = await approvedEmployee(tools);
    const alreadyClaimed = await approvedEmployee(tools);
    await client(ToolsTokenService, tools.token).claimToken({ email: alreadyClaimed.email });
    const unapproved = await newUser(h);
    const ghost = uniqueEmail('ghost');
    const ghostId = '00000000-0000-4000-8000-00000000beef';
    const events = client(EventService, tools.token);
    const request = {
      event: protoEvent(h, { eventType: `${tools.integratorSlug}.alert.firing` }),
      recipients: [
        { type: 'email', email: approved.email },
        { type: 'user_id', userId: alreadyClaimed.userId },
        { type: 'email', email: unapproved.email },
        { type: 'email', email: ghost },
        { type: 'user_id', userId: ghostId },
      ],
    };

    const first = await events.publishBulk(request, { headers: { 'x-request-id': 'bulk-1' } });
    expect(first.requestId).toBe('bulk-1');
    const [a, b, c, d, e] = first.results;
    expect(a).toMatchObject({ email: approved.email, deduped: false, pushed: false, autoClaimed: true });
    expect(a!.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a!.error).toBeUndefined();
    expect(b).toMatchObject({ email: alreadyClaimed.email, deduped: false });
    expect(b!.autoClaimed).toBeUndefined();
    expect(c).toMatchObject({ email: unapproved.email, error: 'no_approved_request' });
    expect(c!.deliveryId).toBeUndefined();
    expect(d).toMatchObject({ email: ghost, error: 'user_not_found' });
    expect(e).toMatchObject({ email: '', userId: ghostId, error: 'user_not_found' });

    const again = await events.publishBulk(request);
    expect(again.results[0]).toMatchObject({ deliveryId: a!.deliveryId, deduped: true });
    expect(again.results[0]!.autoClaimed).toBeUndefined();
    expect(again.results[1]).toMatchObject({ deliveryId: b!.deliveryId, deduped: true });

    // auto_claim false: an approved employee without a claimed token is not minted for.
    const fresh = await approvedEmployee(tools);
    const off = await events.publishBulk({ ...request, recipients: [{ type: 'email', email: fresh.email }], autoClaim: false });
    expect(off.results).toHaveLength(1);
    expect(off.results[0]).toMatchObject({ email: fresh.email, error: 'no_approved_request' });
  });

  it('an invalid request: InvalidArgument with event.* and recipients.N.* paths; a personal token is token_mismatch', async () => {
    const tools = await adminTools();
    const events = client(EventService, tools.token);
    const err = await connectErrorOf(
      events.publishBulk({
        event: protoEvent(h, { eventType: 'elsewhere.x', title: '' }),
        recipients: [{ type: 'email', email: 'bad' }, { type: 'user_id', userId: 'nope' }, { type: 'fax' }],
      }),
    );
    expect(err.code).toBe(Code.InvalidArgument);
    const byField = Object.fromEntries(violations(err));
    expect(byField).toMatchObject({ 'event.title': 'required', 'event.event_type': 'namespace_mismatch' });
    expect(Object.keys(byField)).toEqual(expect.arrayContaining(['recipients.0.email', 'recipients.1.user_id', 'recipients.2.type']));

    const noEvent = await connectErrorOf(events.publishBulk({ recipients: [] }));
    expect(
      violations(noEvent)
        .map(([f]) => f)
        .sort(),
    ).toEqual(['event', 'recipients']);

    const personal = await newPersonalToken(h);
    const mismatch = await connectErrorOf(
      client(EventService, personal.token).publishBulk({ event: protoEvent(h), recipients: [{ type: 'email', email: personal.user.email }] }),
    );
    expect(mismatch.code).toBe(Code.Unauthenticated);
    expect(errorInfo(mismatch)?.code).toBe('token_mismatch');
  });
});

describe('CatalogItemService', () => {
  it('CreateItem, GetItem, ListItems, UpdateItem (update_mask), DeleteItem soft and hard', async () => {
    const tools = await adminTools();
    const items = client(CatalogItemService, tools.token);
    const slug = `${tools.integratorSlug}.gpu-box`;

    const created = await items.createItem({
      slug,
      name: 'GPU box',
      type: 'ai_server',
      category: 'llm-backend',
      description: 'shared inference host',
      useCases: [{ kind: { case: 'stringValue', value: 'batch inference' } }],
      displayOrder: 7,
    });
    expect(created.item).toMatchObject({
      slug,
      name: 'GPU box',
      type: 'ai_server',
      category: 'llm-backend',
      categoryDisplay: 'LLM backend',
      isPinned: false,
      approvalRequired: true,
      displayOrder: 7,
    });
    expect(created.item!.useCases.map((v) => v.kind.value)).toEqual(['batch inference']);
    expect(created.item!.archivedAt).toBeUndefined();
    const taken = await connectErrorOf(items.createItem({ slug, name: 'again', type: 'other' }));
    expect(taken.code).toBe(Code.Aborted);
    expect(errorInfo(taken)?.code).toBe('slug_taken');

    expect((await items.getItem({ slug })).item!.id).toBe(created.item!.id);
    const listed = await items.listItems({ type: 'ai_server', category: 'llm-backend' });
    expect(listed.items.map((i) => i.slug)).toEqual([slug]);
    expect(listed.totalCount).toBe(1);

    const updated = await items.updateItem({ slug, updateMask: { paths: ['name', 'description', 'use_cases'] }, name: 'GPU box 2' });
    expect(updated.item).toMatchObject({ name: 'GPU box 2', useCases: [], displayOrder: 7 });
    expect(updated.item!.description).toBeUndefined();
    const pinned = await items.updateItem({ slug, isPinned: true });
    expect(pinned.item).toMatchObject({ isPinned: true, name: 'GPU box 2' });
    const immutable = await connectErrorOf(items.updateItem({ slug, updateMask: { paths: ['slug', 'type', 'name'] } }));
    expect(immutable.code).toBe(Code.InvalidArgument);
    expect(Object.fromEntries(violations(immutable))).toMatchObject({ slug: 'immutable', type: 'immutable' });
    expect(violations(immutable).map(([f]) => f)).toContain('name');

    // The integrator's own row has an approval: a hard delete is refused with the blockers.
    const emp = await approvedEmployee(tools);
    expect(emp.approvalId).toBeDefined();
    const blocked = await connectErrorOf(items.deleteItem({ slug: tools.catalogSlug, hard: true }));
    expect(blocked.code).toBe(Code.Aborted);
    expect(errorInfo(blocked)?.code).toBe('delete_blocked');
    expect(JSON.parse(errorInfo(blocked)!.metadata.blockers!)).toMatchObject({ liveApprovals: 1 });

    const soft = await items.deleteItem({ slug });
    expect(soft).toMatchObject({ mode: 'soft', slug, alreadyArchived: false });
    expect(soft.item!.archivedAt).toBeDefined();
    expect((await items.deleteItem({ slug })).alreadyArchived).toBe(true);
    expect((await connectErrorOf(items.getItem({ slug }))).code).toBe(Code.NotFound);
    const hard = await items.deleteItem({ slug, hard: true });
    expect(hard).toMatchObject({ mode: 'hard', slug, alreadyArchived: false });
    expect(hard.item).toBeUndefined();
  });
});

describe('grpc.health.v1 Health', () => {
  it('knows the new services', async () => {
    const health = createClient(Health, transportFor(h, 'grpc'));
    for (const s of [ToolsTokenService, CatalogApprovalService, CatalogItemService, IntegratorService]) {
      expect((await health.check({ service: s.typeName })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    }
  });
});
