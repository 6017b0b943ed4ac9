// The document tools on the embedded database (PGlite): the same SQL as on PostgreSQL. PGlite is
// started with the pg_trgm bundle, so the migration creates the trigram indexes and search_docs
// uses them as on PostgreSQL; results must be the same.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, operator, startHarness, type Harness } from '../../helpers/harness.js';
import { newAgent, toolCalls } from './rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: 'embedded' });
});
afterAll(async () => {
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;

const { ok, flatError } = toolCalls(() => h);

describe('documents on the embedded database', () => {
  it('search, states, tags and isolation behave as on PostgreSQL (with the same trigram indexes)', async () => {
    const indexes = await sql(`select indexname from pg_indexes where tablename = 'doc_pages' and indexname like '%trgm%'`);
    // PGlite loads pg_trgm, so the migration creates the same indexes as on PostgreSQL.
    expect(indexes.map((r: any) => r.indexname).sort()).toEqual(['doc_pages_body_trgm_index', 'doc_pages_title_trgm_index']);

    const [author, member, lead, outsider] = await Promise.all([newUser(h), newUser(h), newUser(h), newUser(h)]);
    const project = `emb-${randomBytes(3).toString('hex')}`;
    await operator(h, 'projects.create', { slug: project, name: 'Embedded', members: [author.email, member.email], leads: [lead.email] });
    const [a, m, l, x] = await Promise.all([author, member, lead, outsider].map((u) => newAgent(h, undefined, u)));

    const body = `${'Intro text goes here. '.repeat(15)}Rotate the ÉTCD keys before the window. ${'More text. '.repeat(15)}`;
    const doc = await ok(a!, 'create_doc_draft', { project_slug: project, title: 'Key rotation', body });
    const child = await ok(a!, 'create_doc_draft', { project_slug: project, title: 'Key rotation', parent_page_id: doc.page_id });
    expect(child.slug).toBe('key-rotation-2');
    expect((await ok(m!, 'search_docs', { query: 'etcd keys' })).count).toBe(0); // a draft: author and leads only
    expect((await ok(l!, 'search_docs', { query: 'rotate the' })).hits.map((hh: any) => hh.id)).toEqual([doc.page_id]);
    await ok(l!, 'publish_doc_draft', { page_id: doc.page_id });

    const r = await ok(m!, 'search_docs', { query: 'the ÉTCD', project_slug: project });
    expect(r.hits).toHaveLength(1);
    expect(r.hits[0]).toMatchObject({ id: doc.page_id, matched_field: 'body', status: 'published' });
    expect(r.hits[0].snippet).toContain('Rotate the ÉTCD keys');
    expect(r.hits[0].snippet.startsWith('…') && r.hits[0].snippet.endsWith('…')).toBe(true);
    expect((await ok(m!, 'search_docs', { query: 'KEY ROT' })).hits[0]).toMatchObject({ matched_field: 'title', snippet: 'Key rotation' });
    expect((await ok(x!, 'search_docs', { query: 'key rot' })).count).toBe(0);
    expect(await flatError(x!, 'get_doc', { page_id: doc.page_id })).toBe('NOT_FOUND: document not found');

    await ok(a!, 'tag_doc', { page_id: doc.page_id, tags: ['Security', 'ops'] });
    expect(await ok(m!, 'list_tags', { project_slug: project })).toEqual({
      count: 2,
      tags: [
        { tag: 'ops', count: 1 },
        { tag: 'security', count: 1 },
      ],
    });
    expect((await ok(m!, 'search_by_tags', { tags: ['security', 'ops'], match: 'all' })).docs.map((d: any) => d.id)).toEqual([doc.page_id]);

    expect(await flatError(a!, 'update_doc_draft', { page_id: doc.page_id, parent_page_id: child.page_id })).toMatch(/^CONFLICT/); // published: update_doc
    expect(await flatError(a!, 'update_doc', { page_id: doc.page_id, parent_page_id: child.page_id })).toMatch(/^INVALID_INPUT: .*cycle/);
    expect((await ok(a!, 'update_doc', { page_id: doc.page_id, body: 'short' })).revision).toBe(2);
    expect((await ok(a!, 'archive_doc', { page_id: doc.page_id })).archived_count).toBe(2);
    expect(await flatError(a!, 'tag_doc', { page_id: doc.page_id, tags: ['x'] })).toMatch(/^CONFLICT/);
    expect(await ok(a!, 'restore_doc', { page_id: doc.page_id })).toMatchObject({ status: 'published', restored_count: 2 });
    expect((await sql('select status from doc_pages where id = ?', [child.page_id]))[0].status).toBe('draft');

    const audit = await sql(`select action, source from audit_log where token_id = ? order by created_at`, [a!.tokenId]);
    expect(audit.every((row) => row.source === 'mcp')).toBe(true);
    expect(audit.length).toBeGreaterThanOrEqual(7);
  });
});
