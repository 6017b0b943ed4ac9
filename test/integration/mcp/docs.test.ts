// The document tools through POST /mcp, raw JSON-RPC (SPEC C list_docs ... search_by_tags,
// "Document states", "Agent token scopes" read:docs / write:docs:*; What the service does 8:
// project isolation on the server side).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, operator, startHarness, type Harness, type TestUser } from '../../helpers/harness.js';
import { mcp, newAgent, rpc, toolCalls, type AgentUser } from './rpc.js';

let h: Harness;
beforeAll(async () => {
  // A fixed port so the absolute doc urls can be compared with h.baseUrl.
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;

const { raw, ok, flatError } = toolCalls(() => h);

interface World {
  project: string;
  owner: AgentUser;
  lead: AgentUser;
  techLead: AgentUser;
  author: AgentUser;
  member: AgentUser;
  outsider: AgentUser;
  admin: AgentUser;
  assistant: AgentUser;
}

const agentFor = (u: TestUser, scopes?: string[]) => newAgent(h, scopes, u);

/** A project with an owner, a lead, a tech lead, two members (author, member), plus an outsider, an admin and an assistant; every token `*`. */
async function world(): Promise<World> {
  const [owner, lead, techLead, author, member, outsider] = await Promise.all([newUser(h), newUser(h), newUser(h), newUser(h), newUser(h), newUser(h)]);
  const admin = await newUser(h, 'admin');
  const assistant = await newUser(h, 'assistant');
  const project = `docs-${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', {
    slug: project,
    name: `Project ${project}`,
    owner: owner.email,
    members: [author.email, member.email],
    leads: [lead.email],
    tech_leads: [techLead.email],
  });
  const [o, l, t, a, m, x, ad, as] = await Promise.all([owner, lead, techLead, author, member, outsider, admin, assistant].map((u) => agentFor(u)));
  return { project, owner: o!, lead: l!, techLead: t!, author: a!, member: m!, outsider: x!, admin: ad!, assistant: as! };
}

const draft = (w: World, a: AgentUser, args: Record<string, unknown> = {}) =>
  ok(a, 'create_doc_draft', { project_slug: w.project, title: `Doc ${randomBytes(3).toString('hex')}`, ...args });
const published = async (w: World, a: AgentUser, args: Record<string, unknown> = {}) => {
  const d = await draft(w, a, args);
  await ok(a, 'publish_doc_draft', { page_id: d.page_id });
  return d;
};
const statusOf = async (id: string) => (await sql('select status from doc_pages where id = ?', [id]))[0].status;

describe('document states: draft -> published -> archived -> restored', () => {
  it('creates in the project default space, publishes, archives the subtree and restores it', async () => {
    const w = await world();
    const d = await ok(w.author, 'create_doc_draft', { project_slug: w.project, title: 'Release Checklist', body: 'Step one.\nStep two.', kind: 'runbook' });
    expect(d).toEqual({
      page_id: expect.any(String),
      project_slug: w.project,
      space_slug: w.project,
      slug: 'release-checklist',
      status: 'draft',
      url: `${h.baseUrl}/docs/${w.project}/release-checklist`,
    });

    // The default space is reused, and also addressable by space_slug.
    const d2 = await ok(w.author, 'create_doc_draft', { space_slug: w.project, title: 'Second', parent_page_id: d.page_id });
    expect(d2).toMatchObject({ space_slug: w.project, project_slug: w.project, slug: 'second' });
    expect((await sql('select count(*)::int as n from doc_spaces where project_id = (select id from projects where slug = ?)', [w.project]))[0].n).toBe(1);

    const got = await ok(w.author, 'get_doc', { space_slug: w.project, page_slug: 'release-checklist' });
    expect(got).toEqual({
      id: d.page_id,
      title: 'Release Checklist',
      body: 'Step one.\nStep two.',
      slug: 'release-checklist',
      space_slug: w.project,
      project_slug: w.project,
      kind: 'runbook',
      status: 'draft',
      updated_at: expect.any(String),
      url: d.url,
    });

    h.clock.advance(1_000);
    const before = h.clock.now().getTime();
    const pub = await ok(w.author, 'publish_doc_draft', { page_id: d.page_id });
    expect(pub).toEqual({
      page_id: d.page_id,
      slug: 'release-checklist',
      space_slug: w.project,
      project_slug: w.project,
      status: 'published',
      published_at: expect.any(String),
      url: d.url,
    });
    expect(Date.parse(pub.published_at)).toBeGreaterThanOrEqual(before);
    expect(await flatError(w.author, 'publish_doc_draft', { page_id: d.page_id })).toMatch(/^CONFLICT: .*only drafts/);
    expect((await ok(w.member, 'get_doc', { page_id: d.page_id })).published_at).toBe(pub.published_at);

    // A subtree: d <- d2 (draft) <- d3 (published, by the lead); a sibling tree stays untouched.
    const d3 = await published(w, w.lead, { title: 'Third', parent_page_id: d2.page_id });
    const other = await published(w, w.author, { title: 'Unrelated' });
    const arch = await ok(w.author, 'archive_doc', { page_id: d.page_id });
    expect(arch).toEqual({
      page_id: d.page_id,
      slug: 'release-checklist',
      space_slug: w.project,
      project_slug: w.project,
      status: 'archived',
      archived_count: 3,
      url: d.url,
    });
    expect(await Promise.all([d.page_id, d2.page_id, d3.page_id, other.page_id].map(statusOf))).toEqual(['archived', 'archived', 'archived', 'published']);
    expect((await ok(w.author, 'archive_doc', { page_id: d.page_id })).archived_count).toBe(0);

    // Archived pages leave the default listings, stay readable, and show up when asked for.
    const listed = await ok(w.member, 'list_docs', { project_slug: w.project });
    expect(listed.docs.map((x: any) => x.id)).toEqual([other.page_id]);
    expect((await ok(w.member, 'list_docs', { project_slug: w.project, status: 'archived' })).docs.map((x: any) => x.id).sort()).toEqual(
      [d.page_id, d3.page_id].sort(),
    );
    expect((await ok(w.member, 'get_doc', { page_id: d.page_id })).status).toBe('archived');
    // The archived draft stays a draft for visibility: the plain member still cannot see it.
    expect(await flatError(w.member, 'get_doc', { page_id: d2.page_id })).toBe('NOT_FOUND: document not found');

    // Only the root of the archive call restores the subtree; each page gets its status back.
    expect(await flatError(w.lead, 'restore_doc', { page_id: d3.page_id })).toMatch(/^CONFLICT: .*archived with its ancestor/);
    const restored = await ok(w.author, 'restore_doc', { page_id: d.page_id });
    expect(restored).toEqual({
      page_id: d.page_id,
      slug: 'release-checklist',
      space_slug: w.project,
      project_slug: w.project,
      status: 'published',
      restored_count: 3,
      url: d.url,
    });
    expect(await Promise.all([d.page_id, d2.page_id, d3.page_id].map(statusOf))).toEqual(['published', 'draft', 'published']);
    expect(await flatError(w.author, 'restore_doc', { page_id: d.page_id })).toMatch(/^CONFLICT: .*not archived/);

    // A page archived on its own, then its parent: the child waits for the parent.
    await ok(w.lead, 'archive_doc', { page_id: d3.page_id });
    await ok(w.author, 'archive_doc', { page_id: d.page_id }); // d and d2 (d3 already archived)
    expect(await flatError(w.lead, 'restore_doc', { page_id: d3.page_id })).toMatch(/^CONFLICT: the parent page is archived/);
    expect((await ok(w.author, 'restore_doc', { page_id: d.page_id })).restored_count).toBe(2);
    expect(await statusOf(d3.page_id)).toBe('archived');
    expect(await ok(w.lead, 'restore_doc', { page_id: d3.page_id })).toMatchObject({ status: 'published', restored_count: 1 });

    // A draft archived on its own comes back as a draft.
    const lone = await draft(w, w.author);
    await ok(w.author, 'archive_doc', { page_id: lone.page_id });
    expect(await ok(w.author, 'restore_doc', { page_id: lone.page_id })).toMatchObject({ status: 'draft', restored_count: 1 });

    // Every write is audited with source mcp and the tool name, never the body.
    const audit = await sql(`select action, source, summary from audit_log where token_id = ? order by created_at, action`, [w.author.tokenId]);
    expect(audit.every((r) => r.source === 'mcp')).toBe(true);
    expect(audit.map((r) => r.action)).toEqual(
      expect.arrayContaining(['docs.space.created', 'docs.draft.created', 'docs.page.published', 'docs.page.archived', 'docs.page.restored']),
    );
    expect(JSON.stringify(audit)).not.toContain('Step one');
    expect(audit.find((r) => r.action === 'docs.page.archived').summary).toMatchObject({ tool: 'archive_doc', archived_count: 3 });
  });

  it('update_doc changes a published page and keeps the replaced version as a revision', async () => {
    const w = await world();
    const d = await published(w, w.author, { title: 'Runbook', body: 'v1 body' });
    expect(await flatError(w.author, 'update_doc_draft', { page_id: d.page_id, body: 'x' })).toMatch(/^CONFLICT: .*use update_doc/);
    const u = await ok(w.author, 'update_doc', { page_id: d.page_id, body: 'v2 body', change_summary: 'second pass' });
    expect(u).toEqual({
      page_id: d.page_id,
      slug: d.slug,
      space_slug: w.project,
      project_slug: w.project,
      status: 'published',
      revision: 2,
      updated_at: expect.any(String),
      url: d.url,
    });
    expect((await ok(w.lead, 'update_doc', { page_id: d.page_id, title: 'Runbook (lead edit)' })).revision).toBe(3);
    const revs = await sql('select revision, title, body, change_summary from doc_page_revisions where page_id = ? order by revision', [d.page_id]);
    expect(revs).toEqual([
      { revision: 1, title: 'Runbook', body: 'v1 body', change_summary: null },
      { revision: 2, title: 'Runbook', body: 'v2 body', change_summary: 'second pass' },
    ]);
    expect(await ok(w.member, 'get_doc', { page_id: d.page_id })).toMatchObject({ title: 'Runbook (lead edit)', body: 'v2 body' });

    const dr = await draft(w, w.author);
    expect(await flatError(w.author, 'update_doc', { page_id: dr.page_id, body: 'x' })).toMatch(/^CONFLICT: .*use update_doc_draft/);
    const r = await raw(w.author, 'update_doc', { page_id: d.page_id });
    expect(r.body.error).toMatchObject({ code: -32602 }); // nothing to change
  });
});

describe('who may edit, publish, archive', () => {
  it('only the author edits a draft; author, lead, owner, admin and assistant publish; members do not', async () => {
    const w = await world();
    const d = await draft(w, w.author, { body: 'first' });
    expect(await ok(w.author, 'update_doc_draft', { page_id: d.page_id, body: 'second', title: 'Renamed', kind: 'note', pinned: true })).toEqual({
      page_id: d.page_id,
      slug: d.slug,
      space_slug: w.project,
      project_slug: w.project,
      status: 'draft',
      url: d.url,
    });
    expect(await ok(w.author, 'get_doc', { page_id: d.page_id })).toMatchObject({ title: 'Renamed', body: 'second', kind: 'note', slug: d.slug });

    // Someone else's draft: invisible to members and the tech lead, visible but not editable for leads and admins.
    for (const a of [w.member, w.techLead, w.outsider]) {
      expect(await flatError(a, 'update_doc_draft', { page_id: d.page_id, body: 'x' })).toBe('NOT_FOUND: document not found');
      expect(await flatError(a, 'publish_doc_draft', { page_id: d.page_id })).toBe('NOT_FOUND: document not found');
    }
    for (const a of [w.lead, w.owner, w.admin, w.assistant]) {
      expect(await flatError(a, 'update_doc_draft', { page_id: d.page_id, body: 'x' })).toBe('FORBIDDEN: only the author edits a draft');
    }

    // Publishers: the author, the project's lead and owner, admin, assistant.
    for (const a of [w.author, w.lead, w.owner, w.admin, w.assistant]) {
      const x = await draft(w, w.author);
      expect((await ok(a, 'publish_doc_draft', { page_id: x.page_id })).status).toBe('published');
    }

    // A published page: a plain member sees it but may not change, archive or retag it.
    const p = await published(w, w.author);
    expect(await flatError(w.member, 'update_doc', { page_id: p.page_id, body: 'x' })).toMatch(/^FORBIDDEN: /);
    expect(await flatError(w.member, 'archive_doc', { page_id: p.page_id })).toMatch(/^FORBIDDEN: /);
    expect(await flatError(w.member, 'tag_doc', { page_id: p.page_id, tags: ['x'] })).toMatch(/^FORBIDDEN: /);
    expect(await flatError(w.techLead, 'update_doc', { page_id: p.page_id, body: 'x' })).toMatch(/^FORBIDDEN: /);
    // A member publishes their own draft.
    const own = await draft(w, w.member);
    expect((await ok(w.member, 'publish_doc_draft', { page_id: own.page_id })).status).toBe('published');
    expect((await ok(w.assistant, 'archive_doc', { page_id: p.page_id })).archived_count).toBe(1);
    expect((await ok(w.admin, 'restore_doc', { page_id: p.page_id })).status).toBe('published');
  });
});

describe('scopes', () => {
  it('write:docs:draft cannot publish; write:docs covers both; read:docs cannot write', async () => {
    const w = await world();
    const author = await sqlUser(w.author);
    const drafter = await newAgent(h, ['read:docs', 'write:docs:draft'], author);
    const d = await ok(drafter, 'create_doc_draft', { project_slug: w.project, title: 'Scoped' });
    await ok(drafter, 'update_doc_draft', { page_id: d.page_id, body: 'ok' });
    const refused = await raw(drafter, 'publish_doc_draft', { page_id: d.page_id });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: -32003, data: { type: 'FORBIDDEN', missing_scope: 'write:docs:publish' } });
    const listed = await mcp(h, rpc('tools/list'), { token: drafter.token });
    const names = listed.body.result.tools.map((t: any) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'list_docs',
        'get_doc',
        'search_docs',
        'list_doc_drafts',
        'list_tags',
        'search_by_tags',
        'create_doc_draft',
        'update_doc_draft',
        'tag_doc',
        'untag_doc',
      ]),
    );
    expect(names).not.toContain('publish_doc_draft');
    expect(names).not.toContain('update_doc');
    expect(listed.body.result.tools.find((t: any) => t.name === 'tag_doc').requiredScopes).toEqual(['write:docs:draft', 'write:docs:publish']);

    const writer = await newAgent(h, ['write:docs'], author);
    const d2 = await ok(writer, 'create_doc_draft', { project_slug: w.project, title: 'Parent scope' });
    expect((await ok(writer, 'publish_doc_draft', { page_id: d2.page_id })).status).toBe('published');
    const readErr = await raw(writer, 'get_doc', { page_id: d2.page_id });
    expect(readErr.body.error).toMatchObject({ code: -32003, data: { missing_scope: 'read:docs' } });

    const reader = await newAgent(h, ['read:docs'], author);
    expect((await raw(reader, 'create_doc_draft', { project_slug: w.project, title: 'x' })).body.error).toMatchObject({
      code: -32003,
      data: { missing_scope: 'write:docs:draft' },
    });
    expect((await ok(reader, 'get_doc', { page_id: d2.page_id })).id).toBe(d2.page_id);

    // Tag tools: the scope follows the page's status.
    expect((await ok(drafter, 'tag_doc', { page_id: d.page_id, tags: ['alpha'] })).tags).toEqual(['alpha']);
    const pubTag = await raw(drafter, 'tag_doc', { page_id: d2.page_id, tags: ['alpha'] });
    expect(pubTag.status).toBe(403);
    expect(pubTag.body.error).toMatchObject({ code: -32003, data: { missing_scope: 'write:docs:publish' } });
    const publisher = await newAgent(h, ['write:docs:publish'], author);
    expect((await raw(publisher, 'untag_doc', { page_id: d.page_id, tags: ['alpha'] })).body.error).toMatchObject({
      code: -32003,
      data: { missing_scope: 'write:docs:draft' },
    });
    expect((await ok(publisher, 'tag_doc', { page_id: d2.page_id, tags: ['alpha'] })).tags).toEqual(['alpha']);
  });
});

/** The user behind an agent (to mint more tokens for them). */
const sqlUser = async (a: AgentUser) => ({ userId: a.userId, email: a.email });

describe('visibility isolation', () => {
  it("another project's pages are NOT_FOUND and absent from lists, drafts, tags and search", async () => {
    const w = await world();
    const v = await world();
    const secret = await published(w, w.author, { title: 'Zebra secret plan', body: 'quartz unique marker' });
    await ok(w.author, 'tag_doc', { page_id: secret.page_id, tags: ['zebra-only'] });
    const hisDraft = await draft(w, w.author, { title: 'Zebra draft' });

    for (const a of [v.author, v.owner, w.outsider]) {
      expect(await flatError(a, 'get_doc', { page_id: secret.page_id })).toBe('NOT_FOUND: document not found');
      expect(await flatError(a, 'get_doc', { space_slug: w.project, page_slug: secret.slug })).toBe('NOT_FOUND: document not found');
      expect(await flatError(a, 'update_doc', { page_id: secret.page_id, body: 'x' })).toBe('NOT_FOUND: document not found');
      expect(await flatError(a, 'archive_doc', { page_id: secret.page_id })).toBe('NOT_FOUND: document not found');
      expect(await flatError(a, 'tag_doc', { page_id: secret.page_id, tags: ['x'] })).toBe('NOT_FOUND: document not found');
      expect((await ok(a, 'list_docs', {})).docs.map((d: any) => d.id)).not.toContain(secret.page_id);
      expect((await ok(a, 'list_docs', { project_slug: w.project })).count).toBe(0);
      expect((await ok(a, 'search_docs', { query: 'quartz unique' })).count).toBe(0);
      expect((await ok(a, 'search_docs', { query: 'zebra' })).hits.map((x: any) => x.id)).not.toContain(secret.page_id);
      expect((await ok(a, 'list_doc_drafts', {})).drafts.map((x: any) => x.page_id)).not.toContain(hisDraft.page_id);
      expect((await ok(a, 'list_tags', {})).tags.map((t: any) => t.tag)).not.toContain('zebra-only');
      expect((await ok(a, 'search_by_tags', { tags: ['zebra-only'] })).count).toBe(0);
      expect(await flatError(a, 'create_doc_draft', { project_slug: w.project, title: 'intrude' })).toMatch(/^NOT_FOUND: project/);
      expect(await flatError(a, 'create_doc_draft', { space_slug: w.project, title: 'intrude' })).toMatch(/^NOT_FOUND: space/);
    }
    // Admin and assistant see every project; members see published pages but not others' drafts.
    for (const a of [w.admin, v.admin, w.assistant]) {
      expect((await ok(a, 'get_doc', { page_id: secret.page_id })).id).toBe(secret.page_id);
      expect((await ok(a, 'get_doc', { page_id: hisDraft.page_id })).status).toBe('draft');
      expect((await ok(a, 'search_docs', { query: 'quartz unique' })).hits.map((x: any) => x.id)).toEqual([secret.page_id]);
    }
    expect((await ok(w.member, 'list_docs', { project_slug: w.project })).docs.map((d: any) => d.id)).toEqual([secret.page_id]);
    expect((await ok(w.member, 'search_docs', { query: 'zebra', project_slug: w.project })).hits.map((x: any) => x.id)).toEqual([secret.page_id]);
    expect((await ok(w.lead, 'search_docs', { query: 'zebra', project_slug: w.project })).count).toBe(2);

    // list_doc_drafts: own drafts; lead/owner the project's drafts; admin all; members none of others'.
    const memberDraft = await draft(w, w.member, { title: 'Member draft' });
    const ids = async (a: AgentUser) => (await ok(a, 'list_doc_drafts', { project_slug: w.project })).drafts.map((x: any) => x.page_id).sort();
    expect(await ids(w.author)).toEqual([hisDraft.page_id]);
    expect(await ids(w.member)).toEqual([memberDraft.page_id]);
    expect(await ids(w.techLead)).toEqual([]);
    expect(await ids(w.lead)).toEqual([hisDraft.page_id, memberDraft.page_id].sort());
    expect(await ids(w.owner)).toEqual([hisDraft.page_id, memberDraft.page_id].sort());
    expect(await ids(w.assistant)).toEqual([hisDraft.page_id, memberDraft.page_id].sort());
    const lead = await ok(w.lead, 'list_doc_drafts', { project_slug: w.project });
    expect(lead.drafts.find((x: any) => x.page_id === hisDraft.page_id)).toEqual({
      page_id: hisDraft.page_id,
      title: 'Zebra draft',
      slug: hisDraft.slug,
      space_slug: w.project,
      project_slug: w.project,
      kind: 'page',
      author_name: 'Test User',
      updated_at: expect.any(String),
      url: hisDraft.url,
    });
  });
});

describe('tags', () => {
  it('append and replace, normalised; untag tags or remove_all (neither is rejected); archived must be restored first', async () => {
    const w = await world();
    const d = await published(w, w.author, { title: 'Tagged' });
    expect(await ok(w.author, 'tag_doc', { page_id: d.page_id, tags: ['Ops', 'oncall', 'ops'] })).toEqual({
      page_id: d.page_id,
      slug: d.slug,
      space_slug: w.project,
      project_slug: w.project,
      status: 'published',
      tags: ['oncall', 'ops'],
      added: ['oncall', 'ops'],
      removed: [],
      url: d.url,
    });
    expect(await ok(w.lead, 'tag_doc', { page_id: d.page_id, tags: ['db'] })).toMatchObject({ tags: ['db', 'oncall', 'ops'], added: ['db'] });
    expect(await ok(w.author, 'tag_doc', { page_id: d.page_id, tags: ['db', 'Release Notes'], mode: 'replace' })).toMatchObject({
      tags: ['db', 'release-notes'],
      added: ['release-notes'],
      removed: ['oncall', 'ops'],
    });

    for (const args of [{ page_id: d.page_id }, { page_id: d.page_id, remove_all: false }, { page_id: d.page_id, tags: ['db'], remove_all: true }]) {
      const r = await raw(w.author, 'untag_doc', args);
      expect(r.body.error, JSON.stringify(args)).toMatchObject({ code: -32602 });
    }
    expect(await ok(w.author, 'untag_doc', { page_id: d.page_id, tags: ['DB', 'missing'] })).toMatchObject({ tags: ['release-notes'], removed: ['db'] });
    await ok(w.author, 'tag_doc', { page_id: d.page_id, tags: ['a', 'b'] });
    expect(await ok(w.author, 'untag_doc', { page_id: d.page_id, remove_all: true })).toMatchObject({ tags: [], removed: ['a', 'b', 'release-notes'] });
    expect((await raw(w.author, 'tag_doc', { page_id: d.page_id, tags: [] })).body.error).toMatchObject({ code: -32602, data: { field: 'tags' } });
    expect((await raw(w.author, 'tag_doc', { page_id: d.page_id, tags: ['no spaces?!'] })).body.error).toMatchObject({ code: -32602 });

    await ok(w.author, 'tag_doc', { page_id: d.page_id, tags: ['keep'] });
    await ok(w.author, 'archive_doc', { page_id: d.page_id });
    expect(await flatError(w.author, 'tag_doc', { page_id: d.page_id, tags: ['x'] })).toMatch(/^CONFLICT: .*restore it first/);
    expect(await flatError(w.author, 'untag_doc', { page_id: d.page_id, remove_all: true })).toMatch(/^CONFLICT: .*restore it first/);
    await ok(w.author, 'restore_doc', { page_id: d.page_id });
    expect((await ok(w.author, 'tag_doc', { page_id: d.page_id, tags: ['x'] })).tags).toEqual(['keep', 'x']);
  });

  it('list_tags counts visible documents; search_by_tags any and all', async () => {
    const w = await world();
    const a = await published(w, w.author, { title: 'A' });
    const b = await published(w, w.author, { title: 'B' });
    const c = await draft(w, w.author, { title: 'C' });
    await ok(w.author, 'tag_doc', { page_id: a.page_id, tags: ['ops', 'db'] });
    await ok(w.author, 'tag_doc', { page_id: b.page_id, tags: ['ops'] });
    await ok(w.author, 'tag_doc', { page_id: c.page_id, tags: ['ops', 'db'] });

    expect(await ok(w.author, 'list_tags', { project_slug: w.project })).toEqual({
      count: 2,
      tags: [
        { tag: 'ops', count: 3 },
        { tag: 'db', count: 2 },
      ],
    });
    expect(await ok(w.member, 'list_tags', { project_slug: w.project })).toEqual({
      count: 2,
      tags: [
        { tag: 'ops', count: 2 },
        { tag: 'db', count: 1 },
      ],
    });
    expect(await ok(w.member, 'list_tags', { project_slug: w.project, prefix: 'D' })).toEqual({ count: 1, tags: [{ tag: 'db', count: 1 }] });

    const any = await ok(w.member, 'search_by_tags', { tags: ['db', 'ops'], project_slug: w.project });
    expect(any).toMatchObject({ tags: ['db', 'ops'], match: 'any', count: 2 });
    expect(any.docs.map((d: any) => d.id).sort()).toEqual([a.page_id, b.page_id].sort());
    expect(any.docs.find((d: any) => d.id === a.page_id)).toMatchObject({ title: 'A', status: 'published', tags: ['db', 'ops'], url: a.url });
    const all = await ok(w.author, 'search_by_tags', { tags: ['DB', 'ops'], match: 'all', project_slug: w.project });
    expect(all.docs.map((d: any) => d.id).sort()).toEqual([a.page_id, c.page_id].sort());
    expect((await ok(w.author, 'search_by_tags', { tags: ['db'], status: 'draft', project_slug: w.project })).docs.map((d: any) => d.id)).toEqual([c.page_id]);
  });
});

describe('slugs', () => {
  it('derived from the title and made unique per space; a given slug already taken is CONFLICT', async () => {
    const w = await world();
    const a = await draft(w, w.author, { title: 'Deploy Guide' });
    const b = await draft(w, w.author, { title: 'Deploy guide!' });
    const c = await draft(w, w.member, { title: '  Déploy   GUIDE ' });
    expect([a.slug, b.slug, c.slug]).toEqual(['deploy-guide', 'deploy-guide-2', 'deploy-guide-3']);
    expect((await draft(w, w.author, { title: '运维手册' })).slug).toBe('page');
    expect(await flatError(w.author, 'create_doc_draft', { project_slug: w.project, title: 'x', slug: 'deploy-guide' })).toMatch(
      /^CONFLICT: slug "deploy-guide" is already taken/,
    );
    // An archived page keeps its slug.
    await ok(w.author, 'archive_doc', { page_id: a.page_id });
    expect(await flatError(w.author, 'create_doc_draft', { project_slug: w.project, title: 'x', slug: 'deploy-guide' })).toMatch(/^CONFLICT/);
    // The same slug in another space is fine.
    const v = await world();
    expect((await draft(v, v.author, { title: 'Deploy Guide' })).slug).toBe('deploy-guide');
    for (const slug of ['Deploy', 'a--b', '-a', 'a b', '']) {
      const r = await raw(w.author, 'create_doc_draft', { project_slug: w.project, title: 'x', slug });
      expect(r.body.error, slug).toMatchObject({ code: -32602, data: { field: 'slug' } });
    }
    expect((await raw(w.author, 'create_doc_draft', { title: 'x' })).body.error).toMatchObject({ code: -32602, data: { field: 'project_slug' } });
    expect((await raw(w.author, 'create_doc_draft', { project_slug: w.project, title: 'x', kind: 'wiki' })).body.error).toMatchObject({
      code: -32602,
      data: { field: 'kind' },
    });
    expect((await raw(w.author, 'get_doc', { space_slug: w.project })).body.error).toMatchObject({ code: -32602, data: { field: 'page_slug' } });
    expect((await raw(w.author, 'get_doc', { page_id: 'nope' })).body.error).toMatchObject({ code: -32602, data: { field: 'page_id' } });
  });
});

describe('page tree', () => {
  it('refuses cycles, depth over 20, parents in another space, archived parents', async () => {
    const w = await world();
    const a = await draft(w, w.author, { title: 'A' });
    const b = await draft(w, w.author, { title: 'B', parent_page_id: a.page_id });
    const c = await draft(w, w.author, { title: 'C', parent_page_id: b.page_id });
    expect(await flatError(w.author, 'update_doc_draft', { page_id: a.page_id, parent_page_id: c.page_id })).toBe(
      'INVALID_INPUT: the parent page is below this page: that would make a cycle',
    );
    expect(await flatError(w.author, 'update_doc_draft', { page_id: a.page_id, parent_page_id: a.page_id })).toBe(
      'INVALID_INPUT: a page cannot be its own parent',
    );
    // Moving to the top level and back is fine.
    await ok(w.author, 'update_doc_draft', { page_id: c.page_id, parent_page_id: null });
    expect((await sql('select parent_page_id from doc_pages where id = ?', [c.page_id]))[0].parent_page_id).toBeNull();
    await ok(w.author, 'update_doc_draft', { page_id: c.page_id, parent_page_id: a.page_id });

    // A chain of 20 levels is the limit.
    let parent = a.page_id; // level 1
    for (let level = 2; level <= 20; level++) parent = (await draft(w, w.author, { title: `L${level}`, parent_page_id: parent })).page_id;
    expect(await flatError(w.author, 'create_doc_draft', { project_slug: w.project, title: 'L21', parent_page_id: parent })).toMatch(
      /^INVALID_INPUT: pages nest at most 20 levels deep/,
    );
    // Moving a two-level subtree (B <- ...) under level 19 would reach 21.
    const l19 = (await sql('select parent_page_id from doc_pages where id = ?', [parent]))[0].parent_page_id;
    const leaf = await draft(w, w.author, { title: 'Leaf' });
    const sub = await draft(w, w.author, { title: 'Sub', parent_page_id: leaf.page_id });
    expect(sub.slug).toBe('sub');
    expect(await flatError(w.author, 'update_doc_draft', { page_id: leaf.page_id, parent_page_id: l19 })).toMatch(
      /^INVALID_INPUT: pages nest at most 20 levels deep/,
    );
    await ok(w.author, 'update_doc_draft', { page_id: sub.page_id, parent_page_id: l19 }); // a leaf fits at level 20

    // Another space of the same project (spaces other than the default one come from the web interface).
    const spaceSlug = `${w.project}-handbook`;
    await sql(
      `insert into doc_spaces (id, project_id, slug, name, is_default, created_at) select gen_random_uuid(), id, ?, 'Handbook', false, now() from projects where slug = ?`,
      [spaceSlug, w.project],
    );
    const inOther = await ok(w.author, 'create_doc_draft', { project_slug: w.project, space_slug: spaceSlug, title: 'Elsewhere' });
    expect(inOther).toMatchObject({ space_slug: spaceSlug, url: `${h.baseUrl}/docs/${spaceSlug}/elsewhere` });
    expect(await flatError(w.author, 'update_doc_draft', { page_id: inOther.page_id, parent_page_id: a.page_id })).toBe(
      'INVALID_INPUT: the parent page must be in the same space',
    );
    const v = await world();
    expect(await flatError(w.author, 'create_doc_draft', { project_slug: v.project, space_slug: spaceSlug, title: 'x' })).toMatch(/^NOT_FOUND/);

    const gone = await published(w, w.author, { title: 'Gone' });
    await ok(w.author, 'archive_doc', { page_id: gone.page_id });
    expect(await flatError(w.author, 'create_doc_draft', { project_slug: w.project, title: 'Orphan', parent_page_id: gone.page_id })).toMatch(
      /^CONFLICT: the parent page is archived/,
    );
    // A parent the caller cannot see (someone else's draft) is not found.
    expect(await flatError(w.member, 'create_doc_draft', { project_slug: w.project, title: 'x', parent_page_id: a.page_id })).toBe(
      'NOT_FOUND: parent page not found',
    );
  });
});

describe('search_docs', () => {
  it('substring, case-insensitive over title and body, with matched_field and a snippet around the first match', async () => {
    const w = await world();
    const long = `${'Lorem ipsum dolor sit amet. '.repeat(20)}The Kubernetes CLUSTER upgrade needs a drain first. ${'Trailing filler text here. '.repeat(20)}`;
    const inBody = await published(w, w.author, { title: 'Upgrade notes', body: long, kind: 'runbook' });
    const inTitle = await published(w, w.author, { title: 'Cluster sizing', body: 'nothing relevant', kind: 'guide' });
    const inBoth = await published(w, w.author, { title: 'The cluster FAQ', body: 'cluster cluster cluster' });
    const percent = await published(w, w.author, { title: 'Budget', body: 'we spend 100% of it, under_score too' });

    const r = await ok(w.member, 'search_docs', { query: 'CLUSTER', project_slug: w.project });
    expect(r.query).toBe('CLUSTER');
    expect(r.count).toBe(3);
    // Title matches first.
    expect(r.hits.slice(0, 2).map((x: any) => x.matched_field)).toEqual(['title', 'title']);
    expect(
      r.hits
        .slice(0, 2)
        .map((x: any) => x.id)
        .sort(),
    ).toEqual([inTitle.page_id, inBoth.page_id].sort());
    const body = r.hits[2];
    expect(body).toEqual({
      id: inBody.page_id,
      title: 'Upgrade notes',
      slug: inBody.slug,
      space_slug: w.project,
      project_slug: w.project,
      kind: 'runbook',
      status: 'published',
      snippet: expect.stringContaining('Kubernetes CLUSTER upgrade'),
      matched_field: 'body',
      url: inBody.url,
    });
    expect(body.snippet.startsWith('…')).toBe(true);
    expect(body.snippet.endsWith('…')).toBe(true);
    expect(body.snippet.length).toBeLessThan(260);
    expect(r.hits.find((x: any) => x.id === inTitle.page_id).snippet).toBe('Cluster sizing');

    // Inside a word, case-insensitive.
    expect((await ok(w.member, 'search_docs', { query: 'ubernet' })).hits.map((x: any) => x.id)).toEqual([inBody.page_id]);
    // LIKE wildcards are literal.
    expect((await ok(w.member, 'search_docs', { query: '100%', project_slug: w.project })).hits.map((x: any) => x.id)).toEqual([percent.page_id]);
    expect((await ok(w.member, 'search_docs', { query: 'spend_100', project_slug: w.project })).count).toBe(0);
    expect((await ok(w.member, 'search_docs', { query: 'under_score', project_slug: w.project })).count).toBe(1);
    // Filters.
    expect((await ok(w.member, 'search_docs', { query: 'cluster', kind: 'guide', project_slug: w.project })).hits.map((x: any) => x.id)).toEqual([
      inTitle.page_id,
    ]);
    expect((await ok(w.member, 'search_docs', { query: 'cluster', space_slug: w.project, limit: 1 })).count).toBe(1);
    expect((await ok(w.member, 'search_docs', { query: 'cluster', status: 'draft', project_slug: w.project })).count).toBe(0);
    // Drafts: only in the author's (and leads') results.
    const dr = await draft(w, w.author, { title: 'Cluster draft' });
    expect((await ok(w.member, 'search_docs', { query: 'cluster draft' })).count).toBe(0);
    expect((await ok(w.author, 'search_docs', { query: 'cluster draft' })).hits.map((x: any) => x.id)).toEqual([dr.page_id]);
    // Input bounds.
    for (const args of [{ query: '' }, { query: '   ' }, { query: 'x', limit: 0 }, { query: 'x', limit: 101 }, {}]) {
      expect((await raw(w.member, 'search_docs', args)).body.error, JSON.stringify(args)).toMatchObject({ code: -32602 });
    }
  });

  it('every title match before any body match, each group by rank; body matches only fill a page the titles leave short', async () => {
    const w = await world();
    const k = `qx${randomBytes(3).toString('hex')}`;
    // Title matches: the one that also repeats the word in its body ranks first.
    const titleRich = await published(w, w.author, { title: `${k} runbook`, body: `${k} ${k} ${k} steps` });
    const titlePlain = await published(w, w.author, { title: `About ${k}`, body: 'nothing else here' });
    // Body-only matches: more mentions rank higher.
    const bodyRich = await published(w, w.author, { title: 'Release notes', body: `${k} then ${k} and ${k} again` });
    const bodyPlain = await published(w, w.author, { title: 'Changelog', body: `mentions ${k} once` });
    const ids = async (limit: number) =>
      (await ok(w.member, 'search_docs', { query: k.toUpperCase(), project_slug: w.project, limit })).hits.map((x: any) => x.id);

    expect(await ids(10)).toEqual([titleRich.page_id, titlePlain.page_id, bodyRich.page_id, bodyPlain.page_id]);
    // Titles fill the page: no body match.
    expect(await ids(2)).toEqual([titleRich.page_id, titlePlain.page_id]);
    expect(await ids(1)).toEqual([titleRich.page_id]);
    // One slot left after the titles: the best body match.
    expect(await ids(3)).toEqual([titleRich.page_id, titlePlain.page_id, bodyRich.page_id]);
    const hits = (await ok(w.member, 'search_docs', { query: k, project_slug: w.project, limit: 10 })).hits;
    expect(hits.map((x: any) => x.matched_field)).toEqual(['title', 'title', 'body', 'body']);
    expect(hits[2].snippet).toContain(`${k} then ${k}`);
  });
});
