// The catalog a person uses, through Connect (CatalogPortalService): browse with one's own status,
// apply (pending, or approved at once when the row needs no review; a second apply returns the live
// request), withdraw, one's own requests; the admins' queue and review through the one review core
// (the same rules as ReviewApproval); the notices to the applicant and to admins (one per admin per
// row per hour); audit with source `web` or `connect`; and mode 3 to its end: the row's tools-token
// claims the approved person's token, which publishes into their inbox. Each operation also with
// the wrong caller and bad input.
import { randomUUID } from 'node:crypto';
import { Code, createClient, type Client, type ConnectError, type Interceptor } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { CatalogApprovalService } from '../../../gen/fluxdesk/catalog/v1/catalog_pb.js';
import { CatalogPortalService } from '../../../gen/fluxdesk/catalog/v1/catalog_portal_pb.js';
import { bearer, closeSessions, fails, transportFor, violations, webSession, withSession } from '../../helpers/connect.js';
import { event, http, newUser, operator, publish, startHarness, type Harness, type TestUser } from '../../helpers/harness.js';
import { adminTools, claim, HOUR_MS, sql, type ToolsFixture } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

type Portal = Client<typeof CatalogPortalService>;
const portalWith = (i: Interceptor): Portal => createClient(CatalogPortalService, transportFor(h, 'connect', [i]));
/** A person signed in to the web app (session cookie + x-csrf-token). */
const asWeb = async (u: TestUser): Promise<Portal> => portalWith(withSession(await webSession(h, u.email)));
/** A person's agent token (`sk-svc-`) with these scopes (default `*`). */
async function asAgent(u: TestUser, scopes?: string[]): Promise<Portal> {
  const t = await operator<{ token: string }>(h, 'agent_tokens.create', scopes ? { email: u.email, scopes } : { email: u.email });
  return portalWith(bearer(t.token));
}
const code = (err: ConnectError) => err.findDetails(ErrorInfoSchema)[0]?.code;
const notices = (userId: string) =>
  sql<{ title: string; summary: string | null; target_url: string | null; actor_user_id: string | null }>(
    h,
    `select title, summary, target_url, actor_user_id from notifications where user_id = ? order by created_at, id`,
    [userId],
  );
const audit = (targetId: string) =>
  sql<{ action: string; source: string; actor_user_id: string }>(
    h,
    `select action, source, actor_user_id from audit_log where target_id = ? order by created_at`,
    [targetId],
  );

/** A catalog row of the integrator (`approval_required` true), renamed so tests can find it. */
async function row(name = `Row ${randomUUID().slice(0, 6)}`): Promise<ToolsFixture & { name: string }> {
  const tools = await adminTools(h);
  await sql(h, `update catalog_items set name = ? where id = ?`, [name, tools.catalogRowId]);
  return { ...tools, name };
}

/** A further catalog row made through the REST item API (any fields). */
async function item(tools: ToolsFixture, body: Record<string, unknown>): Promise<{ id: string; slug: string }> {
  const slug = `${tools.integratorSlug}.${randomUUID().slice(0, 8)}`;
  const r = await http(h, 'POST', '/api/v1/catalog/items', { token: tools.token, body: { slug, name: slug, type: 'saas_account', ...body } });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.item.id, slug };
}

describe('browse and apply', () => {
  it('lists the live catalog by category with the caller status; apply files a pending request once; the caller sees it', async () => {
    const tools = await row('Acme CI access');
    const other = await item(tools, {
      category: 'llm-backend',
      description: 'A model endpoint',
      application_guide: 'Say which team',
      url: 'https://llm.example.com',
    });
    const archived = await item(tools, { category: 'llm-backend' });
    expect((await http(h, 'DELETE', `/api/v1/catalog/items/${archived.slug}`, { token: tools.token })).status).toBe(200);
    const member = await newUser(h);
    const web = await asWeb(member);

    const before = await web.listCatalog({});
    const labels = before.categories.map((c) => c.display);
    expect(labels.indexOf('LLM backend')).toBeLessThan(labels.indexOf('Inbound integration'));
    const entries = before.categories.flatMap((c) => c.entries);
    expect(entries.map((e) => e.id)).not.toContain(archived.id);
    const llm = before.categories.find((c) => c.category === 'llm-backend')!.entries.find((e) => e.id === other.id)!;
    expect(llm).toMatchObject({
      slug: other.slug,
      type: 'saas_account',
      description: 'A model endpoint',
      applicationGuide: 'Say which team',
      url: 'https://llm.example.com',
      approvalRequired: true,
      myStatus: 'none',
    });
    expect(llm.myRequest).toBeUndefined();
    const ci = before.categories.find((c) => c.category === 'inbound-integration')!.entries.find((e) => e.id === tools.catalogRowId)!;
    expect(ci).toMatchObject({ name: 'Acme CI access', slug: tools.catalogSlug, type: 'api_key', myStatus: 'none' });
    expect(ci.contact).toMatchObject({ userId: tools.admin.userId, email: tools.admin.email });

    const first = await web.apply({ catalogId: tools.catalogRowId, note: 'for the nightly builds' });
    expect(first.created).toBe(true);
    expect(first.request).toMatchObject({
      catalogItemId: tools.catalogRowId,
      catalogSlug: tools.catalogSlug,
      catalogName: 'Acme CI access',
      status: 'pending',
      note: 'for the nightly builds',
    });
    expect(first.request!.reviewedAt).toBeUndefined();
    // A second apply (by slug this time) returns the live request.
    const again = await web.apply({ catalogSlug: tools.catalogSlug, note: 'again' });
    expect(again).toMatchObject({ created: false, request: { id: first.request!.id, status: 'pending', note: 'for the nightly builds' } });
    expect(await sql(h, `select count(*)::int as n from catalog_requests where user_id = ?`, [member.userId])).toEqual([{ n: 1 }]);

    const after = (await web.listCatalog({})).categories.flatMap((c) => c.entries).find((e) => e.id === tools.catalogRowId)!;
    expect(after.myStatus).toBe('pending');
    expect(after.myRequest).toMatchObject({ id: first.request!.id, note: 'for the nightly builds' });
    expect((await web.listMyRequests({})).items.map((r) => r.id)).toEqual([first.request!.id]);

    // Audited once (the repeat changed nothing), source web, the member as actor.
    expect(await audit(first.request!.id)).toEqual([{ action: 'catalog.request.filed', source: 'web', actor_user_id: member.userId }]);
  });

  it('a row with approval_required false is approved at once (no admin is asked); an agent token applies with source connect', async () => {
    const tools = await row();
    const open = await item(tools, { approval_required: false, category: 'network' });
    const member = await newUser(h);
    const agent = await asAgent(member);
    const out = await agent.apply({ catalogId: open.id });
    expect(out.created).toBe(true);
    expect(out.request).toMatchObject({ status: 'approved' });
    expect(out.request!.reviewedAt).toBeDefined();
    expect(out.request!.reviewedByEmail).toBeUndefined();
    expect(await sql(h, `select status from access_assets where request_id = ?`, [out.request!.id])).toEqual([{ status: 'active' }]);
    expect((await notices(tools.admin.userId)).filter((n) => n.title.includes(open.slug))).toEqual([]);
    expect(await audit(out.request!.id)).toEqual([{ action: 'catalog.request.filed', source: 'connect', actor_user_id: member.userId }]);
    const entry = (await agent.listCatalog({})).categories.find((c) => c.category === 'network')!.entries.find((e) => e.id === open.id)!;
    expect(entry.myStatus).toBe('approved');
  });

  it('refuses bad input with every violation: NUL, control characters, 501 characters, both or neither address, a bad uuid; 500 is fine', async () => {
    const tools = await row();
    const web = await asWeb(await newUser(h));
    const nul = await fails(web.apply({ catalogId: tools.catalogRowId, note: 'a\u0000b' }));
    expect(nul.code).toBe(Code.InvalidArgument);
    expect(violations(nul)).toEqual(['note:invalid_characters']);
    const bell = await fails(web.apply({ catalogId: tools.catalogRowId, note: 'ring \u0007' }));
    expect(violations(bell)).toEqual(['note:invalid_characters']);
    const long = await fails(web.apply({ catalogId: tools.catalogRowId, note: 'x'.repeat(501) }));
    expect(long.code).toBe(Code.InvalidArgument);
    expect(violations(long)).toEqual(['note:too_long']);
    expect(violations(await fails(web.apply({ catalogId: tools.catalogRowId, catalogSlug: tools.catalogSlug })))).toEqual(['catalog_slug:exactly_one']);
    expect(violations(await fails(web.apply({})))).toEqual(['catalog_id:exactly_one']);
    expect(violations(await fails(web.apply({ catalogId: 'nope' })))).toEqual(['catalog_id:invalid_format']);
    // Nothing was stored by the refusals.
    expect((await web.listMyRequests({})).items).toEqual([]);
    expect((await web.apply({ catalogId: tools.catalogRowId, note: 'x'.repeat(500) })).request!.note).toHaveLength(500);
  });

  it('10 concurrent applies of one person end with one request, returned to every call', async () => {
    const tools = await row();
    const member = await newUser(h);
    const web = await asWeb(member);
    const outs = await Promise.all(Array.from({ length: 10 }, () => web.apply({ catalogId: tools.catalogRowId })));
    expect(new Set(outs.map((o) => o.request!.id)).size).toBe(1);
    expect(outs.filter((o) => o.created)).toHaveLength(1);
    expect(await sql(h, `select count(*)::int as n from catalog_requests where user_id = ?`, [member.userId])).toEqual([{ n: 1 }]);
  });

  it('an unknown or archived row is not_found', async () => {
    const tools = await row();
    const gone = await item(tools, {});
    expect((await http(h, 'DELETE', `/api/v1/catalog/items/${gone.slug}`, { token: tools.token })).status).toBe(200);
    const web = await asWeb(await newUser(h));
    for (const req of [{ catalogId: gone.id }, { catalogSlug: gone.slug }, { catalogId: randomUUID() }, { catalogSlug: 'no.such-row' }]) {
      const err = await fails(web.apply(req));
      expect(err.code, JSON.stringify(req)).toBe(Code.NotFound);
    }
  });

  it('agent tokens need read:catalog to browse and write:catalog to apply; no credentials is unauthenticated', async () => {
    const tools = await row();
    const member = await newUser(h);
    const inboxOnly = await asAgent(member, ['read:inbox']);
    const denied = await fails(inboxOnly.listCatalog({}));
    expect(denied.code).toBe(Code.PermissionDenied);
    expect(code(denied)).toBe('missing_scope');
    const reader = await asAgent(member, ['read:catalog']);
    expect((await reader.listCatalog({})).categories.length).toBeGreaterThan(0);
    expect((await reader.listMyRequests({})).items).toEqual([]);
    const cannot = await fails(reader.apply({ catalogId: tools.catalogRowId }));
    expect(cannot.code).toBe(Code.PermissionDenied);
    expect(code(cannot)).toBe('missing_scope');
    const writer = await asAgent(member, ['read:catalog', 'write:catalog']);
    expect((await writer.apply({ catalogId: tools.catalogRowId })).request!.status).toBe('pending');
    const anonymous = await fails(createClient(CatalogPortalService, transportFor(h, 'connect')).listCatalog({}));
    expect(anonymous.code).toBe(Code.Unauthenticated);
  });
});

describe('withdraw and one own requests', () => {
  it('withdraws a pending request of one own; a repeat changes nothing; another member gets not_found; then apply again', async () => {
    const tools = await row();
    const member = await newUser(h);
    const web = await asWeb(member);
    const { request } = await web.apply({ catalogId: tools.catalogRowId });
    const stranger = await asWeb(await newUser(h));
    const notMine = await fails(stranger.withdraw({ requestId: request!.id }));
    expect(notMine.code).toBe(Code.NotFound);
    const unknown = await fails(web.withdraw({ requestId: randomUUID() }));
    expect(unknown.code).toBe(Code.NotFound);
    expect(violations(await fails(web.withdraw({ requestId: 'x' })))).toEqual(['request_id:invalid_format']);

    const out = await web.withdraw({ requestId: request!.id });
    expect(out).toMatchObject({ withdrawn: true, request: { id: request!.id, status: 'withdrawn' } });
    expect(await web.withdraw({ requestId: request!.id })).toMatchObject({ withdrawn: false, request: { status: 'withdrawn' } });
    expect(await audit(request!.id)).toEqual([
      { action: 'catalog.request.filed', source: 'web', actor_user_id: member.userId },
      { action: 'catalog.request.withdrawn', source: 'web', actor_user_id: member.userId },
    ]);

    // The row offers Apply again; the new request is listed first.
    const entry = (await web.listCatalog({})).categories.flatMap((c) => c.entries).find((e) => e.id === tools.catalogRowId)!;
    expect(entry.myStatus).toBe('none');
    h.clock.advance(1000);
    const second = await web.apply({ catalogId: tools.catalogRowId });
    expect(second.created).toBe(true);
    expect((await web.listMyRequests({})).items.map((r) => [r.id, r.status])).toEqual([
      [second.request!.id, 'pending'],
      [request!.id, 'withdrawn'],
    ]);
    expect(violations(await fails(web.listMyRequests({ limit: 201 })))).toEqual(['limit:too_big']);
  });

  it('a reviewed request cannot be withdrawn (aborted not_pending)', async () => {
    const tools = await row();
    const member = await newUser(h);
    const web = await asWeb(member);
    const { request } = await web.apply({ catalogId: tools.catalogRowId });
    await (await asWeb(tools.admin)).review({ requestId: request!.id, decision: 'reject', note: 'not this quarter' });
    const err = await fails(web.withdraw({ requestId: request!.id }));
    expect(err.code).toBe(Code.Aborted);
    expect(code(err)).toBe('not_pending');
    expect(err.rawMessage).toBe('request was already reviewed: rejected');
  });
});

describe('review', () => {
  it('admins list the queue oldest first and approve with a note; the applicant is told and sees it; the tools-token claims and publishes', async () => {
    const tools = await row('Acme deploy bot');
    const [ana, bob] = [await newUser(h), await newUser(h)];
    const anaWeb = await asWeb(ana);
    const { request: anaReq } = await anaWeb.apply({ catalogId: tools.catalogRowId, note: 'on call' });
    h.clock.advance(2000);
    const { request: bobReq } = await (await asWeb(bob)).apply({ catalogId: tools.catalogRowId });

    const admin = await asWeb(tools.admin);
    const queue = (await admin.listPendingRequests({})).items.filter((i) => i.request!.catalogItemId === tools.catalogRowId);
    expect(queue.map((i) => i.request!.id)).toEqual([anaReq!.id, bobReq!.id]);
    expect(queue[0]).toMatchObject({
      applicant: { userId: ana.userId, email: ana.email },
      request: { note: 'on call', catalogName: 'Acme deploy bot', status: 'pending' },
    });
    expect(queue[0]!.filedByEmail).toBeUndefined();
    expect(queue[0]!.ageSeconds).toBeGreaterThanOrEqual(2n);

    const approved = await admin.review({ requestId: anaReq!.id, decision: 'approve', note: 'ok for on-call' });
    expect(approved.applicantEmail).toBe(ana.email);
    expect(approved.request).toMatchObject({ id: anaReq!.id, status: 'approved', reviewNote: 'ok for on-call', reviewedByEmail: tools.admin.email });
    expect(await audit(anaReq!.id)).toEqual([
      { action: 'catalog.request.filed', source: 'web', actor_user_id: ana.userId },
      { action: 'catalog.request.approved', source: 'web', actor_user_id: tools.admin.userId },
    ]);
    expect(await notices(ana.userId)).toEqual([
      {
        title: 'Acme deploy bot: request approved',
        summary: "Reviewer's note: ok for on-call",
        target_url: `${h.baseUrl}/catalog`,
        actor_user_id: tools.admin.userId,
      },
    ]);
    const entry = (await anaWeb.listCatalog({})).categories.flatMap((c) => c.entries).find((e) => e.id === tools.catalogRowId)!;
    expect(entry).toMatchObject({ myStatus: 'approved', myRequest: { reviewNote: 'ok for on-call', reviewedByEmail: tools.admin.email } });

    // Reviewed meanwhile through the tools-token surface: a clear "already reviewed".
    const rejectedElsewhere = await createClient(CatalogApprovalService, transportFor(h, 'connect', [bearer(tools.token)])).reviewApproval({
      requestId: bobReq!.id,
      decision: 'reject',
    });
    expect(rejectedElsewhere.approval!.status).toBe('rejected');
    expect((await notices(bob.userId)).map((n) => [n.title, n.summary])).toEqual([['Acme deploy bot: request rejected', null]]);
    const late = await fails(admin.review({ requestId: bobReq!.id, decision: 'approve' }));
    expect(late.code).toBe(Code.Aborted);
    expect(code(late)).toBe('not_pending');
    expect(late.rawMessage).toBe('request was already reviewed: rejected');
    expect((await admin.listPendingRequests({})).items.map((i) => i.request!.id)).not.toContain(bobReq!.id);

    // Mode 3 to its end: the row's tools-token claims Ana's personal token; it publishes into her inbox.
    const claimed = await claim(h, tools.token, { email: ana.email });
    expect(claimed.status, claimed.text).toBe(200);
    const published = await publish(h, claimed.body.token, event(h, { event_type: `${tools.prefix}deploy.finished`, title: 'Deploy 42 finished' }));
    expect(published.status, published.text).toBe(202);
    expect((await notices(ana.userId)).map((n) => n.title)).toEqual(['Acme deploy bot: request approved', 'Deploy 42 finished']);
    // Bob, rejected, cannot be claimed for.
    expect((await claim(h, tools.token, { email: bob.email })).status).toBe(403);
  });

  it('a member may not list the queue or review; bad review input is refused with every violation', async () => {
    const tools = await row();
    const member = await newUser(h);
    const web = await asWeb(member);
    const { request } = await web.apply({ catalogId: tools.catalogRowId });
    for (const p of [web.listPendingRequests({}), web.review({ requestId: request!.id, decision: 'approve' })]) {
      const err = await fails(p);
      expect(err.code).toBe(Code.PermissionDenied);
      expect(code(err)).toBe('forbidden_admin_only');
    }
    // An admin's agent token without admin:approvals.
    const scoped = await asAgent(tools.admin, ['read:catalog', 'write:catalog']);
    expect(code(await fails(scoped.listPendingRequests({})))).toBe('missing_scope');

    const admin = await asWeb(tools.admin);
    const bad = await fails(admin.review({ requestId: request!.id, decision: 'approve', note: `${'x'.repeat(499)}\u0000` }));
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(violations(bad)).toEqual(['note:invalid_characters']);
    const many = await fails(admin.review({ requestId: 'nope', decision: 'maybe', note: 'x'.repeat(501) }));
    expect(violations(many)).toEqual(['decision:invalid_enum', 'note:too_long', 'request_id:invalid_format']);
    expect((await fails(admin.review({ requestId: randomUUID(), decision: 'approve' }))).code).toBe(Code.NotFound);
    expect(violations(await fails(admin.listPendingRequests({ limit: 0 })))).toEqual(['limit:too_small']);
    // Still pending after all the refusals.
    expect((await web.listMyRequests({})).items[0]!.status).toBe('pending');
  });

  it('a review after a withdraw is aborted not_pending: the request was withdrawn', async () => {
    const tools = await row();
    const web = await asWeb(await newUser(h));
    const { request } = await web.apply({ catalogId: tools.catalogRowId });
    await web.withdraw({ requestId: request!.id });
    const err = await fails((await asAgent(tools.admin)).review({ requestId: request!.id, decision: 'approve' }));
    expect(err.code).toBe(Code.Aborted);
    expect(code(err)).toBe('not_pending');
    expect(err.rawMessage).toBe('request was withdrawn by the applicant');
    expect((await sql(h, `select status from catalog_requests where id = ?`, [request!.id]))[0].status).toBe('withdrawn');
  });
});

describe('notices to admins', () => {
  it('a new pending request tells each admin once per row per hour; the applicant and other rows are not affected', async () => {
    const tools = await row('Burst row');
    const admin = tools.admin;
    const burst = await Promise.all([1, 2, 3].map(async () => (await asWeb(await newUser(h))).apply({ catalogId: tools.catalogRowId })));
    expect(burst.every((b) => b.request!.status === 'pending')).toBe(true);
    const mine = async () => (await notices(admin.userId)).filter((n) => n.title === 'Burst row: new access request');
    const once = await mine();
    expect(once).toHaveLength(1);
    expect(once[0]).toMatchObject({ target_url: `${h.baseUrl}/admin/requests` });
    expect(once[0]!.summary).toMatch(/applied; the request waits for review\.$/);

    // An admin applying is not told of their own request.
    const otherAdmin = await newUser(h, 'admin');
    await (await asWeb(otherAdmin)).apply({ catalogId: tools.catalogRowId });
    expect((await notices(otherAdmin.userId)).filter((n) => n.title === 'Burst row: new access request')).toEqual([]);

    h.clock.advance(HOUR_MS + 1000);
    await (await asWeb(await newUser(h))).apply({ catalogId: tools.catalogRowId });
    expect(await mine()).toHaveLength(2);
  });
});
