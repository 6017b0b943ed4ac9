// REST v1 catalog item management through real HTTP (SPEC "Catalog item", "Catalog item archive
// state", A rows for /api/v1/catalog/items). Each test makes its own admin tools-token (the 60/min
// budget is per token) and its own rows; list tests filter on a category unique to the test.
import { randomBytes, randomUUID } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperation } from '../../../src/app/run-operation.js';
import {
  CatalogItemDeleteResponseSchema,
  CatalogItemEnvelopeSchema,
  CatalogItemListResponseSchema,
} from '../../../src/domain/catalog/catalog-items.schemas.js';
import { createToolsToken, type ToolsTokenCreated } from '../../../src/domain/tokens/create-tools-token.js';
import { http, newPersonalToken, newUser, startHarness, type Harness, type TestUser } from '../../helpers/harness.js';

let h: Harness;
let ajv: InstanceType<typeof Ajv2020.default>;

beforeAll(async () => {
  h = await startHarness();
  ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...(await http(h, 'GET', '/api/v1/openapi.json')).body, $id: 'openapi.json' });
});
afterAll(async () => {
  await h?.close();
});

/** Real responses validate against the served OpenAPI document (a component, or a `#/...` pointer). */
function documented(name: string, value: unknown): string[] {
  const v = ajv.getSchema(`openapi.json${name.startsWith('#') ? name : `#/components/schemas/${name}`}`)!;
  return v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const tag = () => randomBytes(4).toString('hex');
const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;

type Tools = ToolsTokenCreated & { admin: TestUser };

/** An admin-owned tools-token of a fresh integrator, or of `integrator` (the operator op `tokens.create_tools`, in-process). */
async function adminTools(integrator = `ci-${tag()}`): Promise<Tools> {
  const admin = await newUser(h, 'admin');
  const { output } = await runOperation(h.svc.deps, createToolsToken, {
    surface: 'cli',
    requestId: `req_${tag()}`,
    input: { owner: admin.email, integrator, name: 'catalog tests' },
    log: h.svc.deps.log,
    system: true,
  });
  return { ...output, admin };
}

const item = (over: Record<string, unknown> = {}) => ({ slug: `acme-${tag()}.thing`, name: 'Thing', type: 'api_key', ...over });

const create = (t: string, body: unknown, headers?: Record<string, string>) => http(h, 'POST', '/api/v1/catalog/items', { token: t, body, headers });
const get = (t: string, slug: string) => http(h, 'GET', `/api/v1/catalog/items/${encodeURIComponent(slug)}`, { token: t });
const list = (t: string, query = '') => http(h, 'GET', `/api/v1/catalog/items${query ? `?${query}` : ''}`, { token: t });
const patch = (t: string, slug: string, body: unknown, headers?: Record<string, string>) =>
  http(h, 'PATCH', `/api/v1/catalog/items/${encodeURIComponent(slug)}`, { token: t, body, headers });
const del = (t: string, slug: string, query = '') =>
  http(h, 'DELETE', `/api/v1/catalog/items/${encodeURIComponent(slug)}${query ? `?${query}` : ''}`, { token: t });

async function created(t: string, over: Record<string, unknown> = {}): Promise<any> {
  const r = await create(t, item(over));
  expect(r.status, r.text).toBe(201);
  return r.body.item;
}

describe('POST /api/v1/catalog/items', () => {
  it('creates a row with 201, the spec field names and the defaults', async () => {
    const tools = await adminTools();
    const body = item({ category: 'llm-backend' });
    const r = await create(tools.token, body, { 'x-request-id': 'cat-create-1' });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-ratelimit-limit')).toBe('60');
    expect(CatalogItemEnvelopeSchema.parse(r.body)).toBeTruthy();
    expect(documented('CatalogItemResponse', r.body)).toEqual([]);
    expect(r.body).toMatchObject({
      ok: true,
      requestId: 'cat-create-1',
      item: {
        slug: body.slug,
        name: 'Thing',
        type: 'api_key',
        description: null,
        category: 'llm-backend',
        categoryDisplay: 'LLM backend',
        url: null,
        application_guide: null,
        use_cases: [],
        is_pinned: false,
        approval_required: true,
        display_order: 0,
        contact_user_id: null,
        linked_tools_token_id: null,
        archived_at: null,
      },
    });
    expect(Object.keys(r.body.item).sort()).toEqual(
      [
        'id',
        'slug',
        'name',
        'type',
        'description',
        'category',
        'categoryDisplay',
        'url',
        'application_guide',
        'use_cases',
        'is_pinned',
        'approval_required',
        'display_order',
        'contact_user_id',
        'linked_tools_token_id',
        'archived_at',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect(r.body.item.created_at).toBe(r.body.item.updated_at);
    const audit = await sql(`select action, actor_user_id from audit_log where target_id = ?`, [r.body.item.id]);
    expect(audit).toEqual([{ action: 'catalog.item.created', actor_user_id: tools.admin.userId }]);
  });

  it('keeps every optional field, references included, and shows a legacy category as it is', async () => {
    const tools = await adminTools();
    const body = item({
      type: 'saas_account',
      description: 'A thing',
      category: '🤖 AI 工具',
      url: 'https://example.test/thing',
      application_guide: 'Ask the team',
      use_cases: [{ title: 'one' }, 'two', 3],
      display_order: 7,
      is_pinned: true,
      approval_required: false,
      contact_user_id: tools.admin.userId,
      linked_tools_token_id: tools.tokenId,
    });
    const r = await create(tools.token, body);
    expect(r.status).toBe(201);
    const { slug: _s, ...rest } = body;
    expect(r.body.item).toMatchObject({ ...rest, categoryDisplay: '🤖 AI 工具' });
    // The linked tools-token's integrator owns the row.
    const [row] = await sql(`select i.slug from catalog_items c join integrators i on i.id = c.integrator_id where c.id = ?`, [r.body.item.id]);
    expect(row.slug).toBe(tools.integratorSlug);
  });

  it('refuses a bad slug, a missing name or type, a bad type and unknown keys, all at once', async () => {
    const tools = await adminTools();
    const r = await create(tools.token, { slug: 'Bad Slug', type: 'laptop', extra: 1 });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(Object.keys(r.body.fieldErrors).sort()).toEqual(['extra', 'name', 'slug', 'type']);
    for (const slug of ['-leading', 'UPPER', 'a'.repeat(81), '', 'sp ace', 'a/b']) {
      const bad = await create(tools.token, item({ slug }));
      expect(bad.status, slug).toBe(400);
      expect(bad.body.fieldErrors.slug, slug).toBeDefined();
    }
    for (const slug of ['a', 'acme.api-key_v2', 'llm-backend-openai', `a${'b'.repeat(79)}`]) {
      expect((await create(tools.token, item({ slug }))).status, slug).toBe(201);
    }
    const long = await create(tools.token, item({ name: 'n'.repeat(201), display_order: 1.5, use_cases: 'x' }));
    expect(long.status).toBe(400);
    expect(Object.keys(long.body.fieldErrors).sort()).toEqual(['display_order', 'name', 'use_cases']);
  });

  it('refuses references to rows that do not exist (400 field errors)', async () => {
    const tools = await adminTools();
    const personal = await newPersonalToken(h);
    const r = await create(tools.token, item({ contact_user_id: randomUUID(), linked_tools_token_id: personal.tokenId }));
    expect(r.status).toBe(400);
    expect(r.body.fieldErrors).toEqual({ contact_user_id: ['no user with this id'], linked_tools_token_id: ['no tools-token with this id'] });
    const notUuid = await create(tools.token, item({ contact_user_id: 'nope' }));
    expect(notUuid.status).toBe(400);
    expect(notUuid.body.fieldErrors.contact_user_id).toBeDefined();
  });

  it('answers 409 slug_taken for a live or an archived slug', async () => {
    const tools = await adminTools();
    const first = await created(tools.token);
    const again = await create(tools.token, item({ slug: first.slug, name: 'Other' }));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 409, code: 'slug_taken' });
    expect((await del(tools.token, first.slug)).status).toBe(200);
    const afterArchive = await create(tools.token, item({ slug: first.slug }));
    expect(afterArchive.status).toBe(409);
    expect(afterArchive.body.code).toBe('slug_taken');
  });

  it('concurrent creates of one slug give one 201 and 409s', async () => {
    const tools = await adminTools();
    const body = item();
    const rs = await Promise.all(Array.from({ length: 5 }, () => create(tools.token, body)));
    expect(rs.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it('replays an Idempotency-Key with the same envelope; another body with the key is 409', async () => {
    const tools = await adminTools();
    const body = item();
    const key = `create-${tag()}`;
    const first = await create(tools.token, body, { 'idempotency-key': key });
    const second = await create(tools.token, body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const other = await create(tools.token, { ...body, name: 'Changed' }, { 'idempotency-key': key });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('idempotency_key_reused');
    expect(await sql(`select count(*)::int as n from catalog_items where slug = ?`, [body.slug])).toEqual([{ n: 1 }]);
  });
});

describe('GET /api/v1/catalog/items/{slug}', () => {
  it('reads a live row; 404 when missing or archived', async () => {
    const tools = await adminTools();
    const it1 = await created(tools.token, { category: 'network' });
    const r = await get(tools.token, it1.slug);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, item: it1, requestId: r.body.requestId });
    expect(documented('CatalogItemResponse', r.body)).toEqual([]);
    expect(r.headers.get('x-ratelimit-remaining')).not.toBeNull();

    const missing = await get(tools.token, `nope-${tag()}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');

    await del(tools.token, it1.slug);
    expect((await get(tools.token, it1.slug)).status).toBe(404);
  });
});

describe('GET /api/v1/catalog/items', () => {
  it('orders by display_order then name, filters by category, counts all matches and carries rate-limit headers', async () => {
    const tools = await adminTools();
    const category = `cat-${tag()}`;
    await created(tools.token, { category, name: 'Charlie', display_order: 1 });
    await created(tools.token, { category, name: 'Alpha', display_order: 2 });
    await created(tools.token, { category, name: 'Bravo', display_order: 1 });
    await created(tools.token, { category, name: 'Delta', display_order: -5 });
    await created(tools.token, { category: `${category}-other`, name: 'Aardvark', display_order: -100 });

    const r = await list(tools.token, `category=${category}`);
    expect(r.status).toBe(200);
    expect(CatalogItemListResponseSchema.parse(r.body)).toBeTruthy();
    expect(documented('CatalogItemListResponse', r.body)).toEqual([]);
    expect(r.body.items.map((i: any) => i.name)).toEqual(['Delta', 'Bravo', 'Charlie', 'Alpha']);
    expect(r.body.totalCount).toBe(4);
    expect(r.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);

    const one = await list(tools.token, `category=${category}&limit=1`);
    expect(one.status).toBe(200);
    expect(one.body.items.map((i: any) => i.name)).toEqual(['Delta']);
    expect(one.body.totalCount).toBe(4);
    const max = await list(tools.token, `category=${category}&limit=200`);
    expect(max.status).toBe(200);
    expect(max.body.items).toHaveLength(4);

    for (const bad of ['0', '201', '-1', 'abc', '1.5']) {
      const b = await list(tools.token, `limit=${bad}`);
      expect(b.status, bad).toBe(400);
      expect(b.body.fieldErrors.limit, bad).toBeDefined();
    }
    const none = await list(tools.token, `category=${category}-absent`);
    expect(none.body).toMatchObject({ items: [], totalCount: 0 });
  });

  it('filters by type, active_only and integrator_slug', async () => {
    const tools = await adminTools();
    const category = `cat-${tag()}`;
    const a = await created(tools.token, { category, name: 'A', type: 'api_key' });
    const b = await created(tools.token, { category, name: 'B', type: 'repo_access', linked_tools_token_id: tools.tokenId });
    const c = await created(tools.token, { category, name: 'C', type: 'repo_access' });
    expect((await del(tools.token, c.slug)).status).toBe(200);

    const active = await list(tools.token, `category=${category}`);
    expect(active.body.items.map((i: any) => i.slug)).toEqual([a.slug, b.slug]);
    const explicit = await list(tools.token, `category=${category}&active_only=true`);
    expect(explicit.body.totalCount).toBe(2);
    const all = await list(tools.token, `category=${category}&active_only=false`);
    expect(all.body.items.map((i: any) => i.slug)).toEqual([a.slug, b.slug, c.slug]);
    expect(all.body.items[2].archived_at).not.toBeNull();
    expect(all.body.totalCount).toBe(3);

    const repo = await list(tools.token, `category=${category}&type=repo_access&active_only=false`);
    expect(repo.body.items.map((i: any) => i.slug)).toEqual([b.slug, c.slug]);
    expect((await list(tools.token, 'type=laptop')).status).toBe(400);
    expect((await list(tools.token, 'active_only=maybe')).body.fieldErrors.active_only).toBeDefined();
    expect((await list(tools.token, 'unknown=1')).status).toBe(400);

    // The integrator's own row (made with its tools-token) and the row linked to its tools-token.
    const mine = await list(tools.token, `integrator_slug=${tools.integratorSlug}`);
    expect(mine.body.items.map((i: any) => i.slug).sort()).toEqual([tools.catalogSlug, b.slug].sort());
    const nobody = await list(tools.token, `integrator_slug=nobody-${tag()}`);
    expect(nobody.body).toMatchObject({ items: [], totalCount: 0 });
  });
});

describe('PATCH /api/v1/catalog/items/{slug}', () => {
  it('changes the given fields, leaves the others and moves updated_at', async () => {
    const tools = await adminTools();
    const before = await created(tools.token, { description: 'old', category: 'network', url: 'https://old.test' });
    h.clock.advance(1500);
    const r = await patch(tools.token, before.slug, {
      name: 'Renamed',
      description: null,
      category: 'mcp-agent',
      use_cases: [{ x: 1 }],
      display_order: 3,
      is_pinned: true,
      approval_required: false,
      contact_user_id: tools.admin.userId,
    });
    expect(r.status).toBe(200);
    expect(documented('CatalogItemResponse', r.body)).toEqual([]);
    expect(r.body.item).toMatchObject({
      id: before.id,
      slug: before.slug,
      type: before.type,
      name: 'Renamed',
      description: null,
      category: 'mcp-agent',
      categoryDisplay: 'MCP agent',
      url: 'https://old.test',
      use_cases: [{ x: 1 }],
      display_order: 3,
      is_pinned: true,
      approval_required: false,
      contact_user_id: tools.admin.userId,
      created_at: before.created_at,
    });
    expect(Date.parse(r.body.item.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    expect((await get(tools.token, before.slug)).body.item).toEqual(r.body.item);
  });

  it('refuses slug and type as immutable, unknown keys and bad values; 404 for missing or archived rows', async () => {
    const tools = await adminTools();
    const row = await created(tools.token);
    const s = await patch(tools.token, row.slug, { slug: 'other.slug' });
    expect(s.status).toBe(400);
    expect(s.body.fieldErrors).toEqual({ slug: ['immutable'] });
    expect(s.body.errors).toEqual([{ field: 'slug', code: 'immutable', message: 'immutable' }]);
    const same = await patch(tools.token, row.slug, { slug: row.slug });
    expect(same.body.fieldErrors).toEqual({ slug: ['immutable'] });
    const t = await patch(tools.token, row.slug, { type: 'other' });
    expect(t.status).toBe(400);
    expect(t.body.fieldErrors).toEqual({ type: ['immutable'] });
    const both = await patch(tools.token, row.slug, { slug: null, type: 'api_key', name: 'ok' });
    expect(both.body.fieldErrors).toEqual({ slug: ['immutable'], type: ['immutable'] });
    const unknown = await patch(tools.token, row.slug, { colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.fieldErrors)).toEqual(['colour']);
    const bad = await patch(tools.token, row.slug, { name: '', is_pinned: 'yes', linked_tools_token_id: randomUUID() });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.fieldErrors).sort()).toEqual(['is_pinned', 'name']);
    const badRef = await patch(tools.token, row.slug, { linked_tools_token_id: randomUUID() });
    expect(badRef.status).toBe(400);
    expect(Object.keys(badRef.body.fieldErrors)).toEqual(['linked_tools_token_id']);
    expect((await patch(tools.token, row.slug, [1, 2])).status).toBe(400);
    // Nothing changed.
    expect((await get(tools.token, row.slug)).body.item).toEqual(row);

    expect((await patch(tools.token, `nope-${tag()}`, { name: 'x' })).status).toBe(404);
    await del(tools.token, row.slug);
    expect((await patch(tools.token, row.slug, { name: 'x' })).status).toBe(404);
  });

  it('honours Idempotency-Key', async () => {
    const tools = await adminTools();
    const row = await created(tools.token);
    const key = `patch-${tag()}`;
    const first = await patch(tools.token, row.slug, { name: 'Once' }, { 'idempotency-key': key });
    const again = await patch(tools.token, row.slug, { name: 'Once' }, { 'idempotency-key': key });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await patch(tools.token, row.slug, { name: 'Twice' }, { 'idempotency-key': key })).status).toBe(409);
  });
});

describe('DELETE /api/v1/catalog/items/{slug}', () => {
  it('archives (soft, default); a repeat answers already_archived', async () => {
    const tools = await adminTools();
    const row = await created(tools.token);
    const first = await del(tools.token, row.slug);
    expect(first.status).toBe(200);
    expect(CatalogItemDeleteResponseSchema.parse(first.body)).toBeTruthy();
    expect(documented('CatalogItemDeleteResponse', first.body)).toEqual([]);
    expect(first.body).toMatchObject({ ok: true, mode: 'soft', slug: row.slug, already_archived: false, item: { id: row.id } });
    expect(first.body.item.archived_at).not.toBeNull();
    const second = await del(tools.token, row.slug, 'hard=false');
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ ok: true, mode: 'soft', slug: row.slug, already_archived: true, item: { archived_at: first.body.item.archived_at } });
    expect((await del(tools.token, `nope-${tag()}`)).status).toBe(404);
    expect((await del(tools.token, row.slug, 'hard=maybe')).status).toBe(400);
  });

  it('refuses a hard delete with live dependents (409 blockers), then removes the row once they are dead', async () => {
    const tools = await adminTools();
    // A second tools-token of the same integrator: a row links only its own integrator's tokens.
    const linked = await adminTools(tools.integratorSlug);
    const row = await created(tools.token, { linked_tools_token_id: linked.tokenId });
    const [u1, u2, u3] = [await newUser(h), await newUser(h), await newUser(h)];
    const now = new Date().toISOString();
    const req = (user: TestUser, status: string) => {
      const id = randomUUID();
      return sql(`insert into catalog_requests (id, user_id, catalog_item_id, status, requested_at, updated_at) values (?, ?, ?, ?, ?, ?) returning id`, [
        id,
        user.userId,
        row.id,
        status,
        now,
        now,
      ]).then(() => id);
    };
    const approved = await req(u1, 'approved');
    const pending = await req(u2, 'pending');
    const rejected = await req(u3, 'rejected');
    await sql(`insert into access_assets (id, user_id, catalog_item_id, request_id, status, created_at) values (?, ?, ?, ?, 'active', ?)`, [
      randomUUID(),
      u1.userId,
      row.id,
      approved,
      now,
    ]);
    const personal = await newPersonalToken(h, { user: u1 });
    await sql(`update inbound_tokens set approval_id = ? where id = ?`, [approved, personal.tokenId]);

    const blocked = await del(tools.token, row.slug, 'hard=true');
    expect(blocked.status).toBe(409);
    expect(blocked.headers.get('content-type')).toContain('application/problem+json');
    expect(blocked.body).toMatchObject({ status: 409, code: 'delete_blocked', blockers: { liveApprovals: 2, liveAssets: 1, liveTokens: 2 } });
    expect(documented('#/paths/~1api~1v1~1catalog~1items~1{slug}/delete/responses/409/content/application~1problem+json/schema', blocked.body)).toEqual([]);
    expect((await get(tools.token, row.slug)).status).toBe(200);

    // Archived rows are still refused while live dependents exist.
    expect((await del(tools.token, row.slug)).status).toBe(200);
    const stillBlocked = await del(tools.token, row.slug, 'hard=true');
    expect(stillBlocked.status).toBe(409);

    // Everything dies: approvals revoked/withdrawn, the asset revoked, the tokens revoked.
    await sql(`update catalog_requests set status = 'revoked' where id = ?`, [approved]);
    await sql(`update catalog_requests set status = 'withdrawn' where id = ?`, [pending]);
    await sql(`update access_assets set status = 'revoked', revoked_at = now() where catalog_item_id = ?`, [row.id]);
    await sql(`update inbound_tokens set status = 'revoked', revoked_at = now() where id in (?, ?)`, [personal.tokenId, linked.tokenId]);
    const ok = await del(tools.token, row.slug, 'hard=true');
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toEqual({ ok: true, mode: 'hard', slug: row.slug, item: null, already_archived: false, requestId: ok.body.requestId });
    expect(documented('CatalogItemDeleteResponse', ok.body)).toEqual([]);

    expect(await sql(`select id from catalog_items where id = ?`, [row.id])).toEqual([]);
    expect(await sql(`select id from catalog_requests where id in (?, ?, ?)`, [approved, pending, rejected])).toEqual([]);
    expect(await sql(`select id from access_assets where catalog_item_id = ?`, [row.id])).toEqual([]);
    expect(await sql(`select approval_id, status from inbound_tokens where id = ?`, [personal.tokenId])).toEqual([{ approval_id: null, status: 'revoked' }]);
    expect((await get(tools.token, row.slug)).status).toBe(404);
    expect((await del(tools.token, row.slug, 'hard=true')).status).toBe(404);
    expect((await del(tools.token, row.slug)).status).toBe(404);
    // The slug is free again.
    expect((await create(tools.token, item({ slug: row.slug }))).status).toBe(201);
    const audit = await sql(`select action from audit_log where target_id = ? order by created_at, action`, [row.id]);
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['catalog.item.created', 'catalog.item.archived', 'catalog.item.deleted']));
  });

  it('hard-deletes a row without dependents, archived or not', async () => {
    const tools = await adminTools();
    const live = await created(tools.token);
    const r = await del(tools.token, live.slug, 'hard=true');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ mode: 'hard', item: null, already_archived: false });
    const archived = await created(tools.token);
    await del(tools.token, archived.slug);
    expect((await del(tools.token, archived.slug, 'hard=true')).body).toMatchObject({ ok: true, mode: 'hard', item: null });
    expect(await sql(`select id from catalog_items where id in (?, ?)`, [live.id, archived.id])).toEqual([]);
  });

  it('refuses the hard delete of the row linked to an active tools-token', async () => {
    const tools = await adminTools();
    const r = await del(tools.token, tools.catalogSlug, 'hard=true');
    expect(r.status).toBe(409);
    expect(r.body.blockers).toEqual({ liveApprovals: 0, liveAssets: 0, liveTokens: 1 });
  });

  it('answers 409 delete_blocked, not a 500, when a table it does not know still references the row', async () => {
    const tools = await adminTools();
    const row = await created(tools.token);
    const table = `ref_${tag()}`;
    await sql(`create table ${table} (item_id uuid not null references catalog_items (id))`);
    try {
      await sql(`insert into ${table} (item_id) values (?)`, [row.id]);
      const r = await del(tools.token, row.slug, 'hard=true');
      expect(r.status, r.text).toBe(409);
      expect(r.body).toMatchObject({ code: 'delete_blocked', blockers: { liveApprovals: 0, liveAssets: 0, liveTokens: 0 } });
      expect((await get(tools.token, row.slug)).status).toBe(200);
    } finally {
      await sql(`drop table ${table}`);
    }
  });

  it('honours Idempotency-Key on delete', async () => {
    const tools = await adminTools();
    const row = await created(tools.token);
    const key = `del-${tag()}`;
    const first = await http(h, 'DELETE', `/api/v1/catalog/items/${row.slug}`, { token: tools.token, headers: { 'idempotency-key': key } });
    const again = await http(h, 'DELETE', `/api/v1/catalog/items/${row.slug}`, { token: tools.token, headers: { 'idempotency-key': key } });
    expect(first.body.already_archived).toBe(false);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('callers', () => {
  it('every route refuses a personal token (401), a non-admin tools-token (403) and no token (401)', async () => {
    const tools = await adminTools();
    const row = await created(tools.token);
    const personal = await newPersonalToken(h);
    const demoted = await adminTools();
    await sql(`update users set role = 'member' where id = ?`, [demoted.admin.userId]);

    const routes: [string, string, unknown?][] = [
      ['POST', '/api/v1/catalog/items', item()],
      ['GET', '/api/v1/catalog/items'],
      ['GET', `/api/v1/catalog/items/${row.slug}`],
      ['PATCH', `/api/v1/catalog/items/${row.slug}`, { name: 'Hijacked' }],
      ['DELETE', `/api/v1/catalog/items/${row.slug}?hard=true`],
      ['DELETE', `/api/v1/catalog/items/${row.slug}`],
    ];
    for (const [method, path, body] of routes) {
      const p = await http(h, method, path, { token: personal.token, body });
      expect(p.status, `${method} ${path} personal`).toBe(401);
      expect(p.body.code).toBe('token_mismatch');
      const d = await http(h, method, path, { token: demoted.token, body });
      expect(d.status, `${method} ${path} non-admin`).toBe(403);
      expect(d.body.code).toBe('forbidden_admin_only');
      const n = await http(h, method, path, { body });
      expect(n.status, `${method} ${path} anonymous`).toBe(401);
      expect(n.body.code).toBe('missing_or_invalid_authorization');
    }
    expect((await get(tools.token, row.slug)).body.item).toEqual(row);
  });
});
