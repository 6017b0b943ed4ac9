// Feedback tools through POST /mcp (SPEC C create_feedback, add_feedback_comment, list_feedback,
// get_feedback; "Agent token scopes" read:feedback / write:feedback; Errors: structured form for
// the two write tools; Limits: feedback body 8000; What the service does 8: isolation on the
// server) and the `feedback.auto-delete` maintenance job.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTENANCE_TASKS } from '../../../src/app/maintenance-tasks.js';
import { operator, startHarness, type Harness } from '../../helpers/harness.js';
import { mcp, newAgent, toolCalls } from './rpc.js';

let h: Harness;
let base: string;
beforeAll(async () => {
  h = await startHarness();
  base = h.svc.deps.config.publicBaseUrl;
});
afterAll(async () => {
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

const { agent, raw, ok, fails, invalid } = toolCalls(() => h);

/** A project (owner, two members), another project of an outsider, and org-wide roles. */
async function world() {
  const [owner, member, member2, outsider, admin, coordinator, assistant] = [
    // Named: the author fields of the results are asserted below.
    await agent('member', undefined, 'F member'),
    await agent('member', undefined, 'F member'),
    await agent(),
    await agent(),
    await agent('admin'),
    await agent('coordinator', undefined, 'F coordinator'),
    await agent('assistant'),
  ];
  const slug = `f${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', {
    slug,
    name: `Project ${slug}`,
    owner: owner.email,
    members: [member.email, member2.email],
    leads: [],
    tech_leads: [],
  });
  const otherSlug = `g${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', { slug: otherSlug, name: `Other ${otherSlug}`, owner: outsider.email, members: [], leads: [], tech_leads: [] });
  return { slug, otherSlug, owner, member, member2, outsider, admin, coordinator, assistant };
}

const NOT_FOUND = { error: 'NOT_FOUND: feedback not found' };
const STRUCTURED_NOT_FOUND = { error: { type: 'not_found', title: 'not found', detail: 'feedback not found', field: 'feedbackId' } };
const feedbackCount = async () => Number((await sql('select count(*) as n from feedback'))[0].n);
const commentCount = async (id: string) => Number((await sql('select count(*) as n from feedback_comments where feedback_id = ?', [id]))[0].n);

describe('tools/list and scopes', () => {
  it('lists the four tools with their scopes; a token sees only what its scopes allow', async () => {
    const reader = await agent('member', ['read:feedback']);
    const r = await mcp(h, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token: reader.token });
    const names = r.body.result.tools.map((t: any) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_feedback', 'get_feedback']));
    expect(names).not.toContain('create_feedback');
    expect(names).not.toContain('add_feedback_comment');

    const all = await agent();
    const r2 = await mcp(h, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { token: all.token });
    const byName = new Map<string, any>(r2.body.result.tools.map((t: any) => [t.name, t]));
    expect(byName.get('list_feedback').requiredScopes).toEqual(['read:feedback']);
    expect(byName.get('get_feedback').requiredScopes).toEqual(['read:feedback']);
    expect(byName.get('create_feedback').requiredScopes).toEqual(['write:feedback']);
    expect(byName.get('add_feedback_comment').requiredScopes).toEqual(['write:feedback']);
    // The 8000 bound is advertised although the tool enforces it (structured error).
    expect(byName.get('create_feedback').inputSchema.properties.body.maxLength).toBe(8000);
    expect(byName.get('create_feedback').inputSchema.required).toEqual(['title', 'body']);
    expect(byName.get('add_feedback_comment').inputSchema.required).toEqual(['feedbackId', 'body']);
  });

  it('a token lacking the scope gets 403 FORBIDDEN naming it; read:* does not grant write:feedback', async () => {
    const w = await world();
    const readOnly = await newAgent(h, ['read:*'], w.member);
    for (const [name, args] of [
      ['create_feedback', { title: 't', body: 'b' }],
      ['add_feedback_comment', { feedbackId: randomUUID(), body: 'x' }],
    ] as const) {
      const r = await raw(readOnly, name, args);
      expect(r.status, name).toBe(403);
      expect(r.body.error).toMatchObject({ code: -32003, data: { type: 'FORBIDDEN', missing_scope: 'write:feedback' } });
    }
    const writeOnly = await newAgent(h, ['write:feedback'], w.member);
    for (const [name, args] of [
      ['list_feedback', {}],
      ['get_feedback', { feedback_id: randomUUID() }],
    ] as const) {
      const r = await raw(writeOnly, name, args);
      expect(r.status, name).toBe(403);
      expect(r.body.error.data.missing_scope).toBe('read:feedback');
    }
    // write:feedback alone is enough to file and comment.
    const f = await ok(writeOnly, 'create_feedback', { title: 'scoped', body: 'b', project_slug: w.slug });
    expect((await ok(writeOnly, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'c' })).deduplicated).toBe(false);
  });
});

describe('schema', () => {
  it('has the trigram indexes the cross-type search relies on', async () => {
    const rows = await sql(
      `select indexname, indexdef from pg_indexes where tablename in ('feedback', 'feedback_comments') and indexname like '%trgm%' order by indexname`,
    );
    expect(rows.map((r) => r.indexname)).toEqual(['feedback_body_trgm_index', 'feedback_comments_body_trgm_index', 'feedback_title_trgm_index']);
    for (const r of rows) expect(r.indexdef).toMatch(/USING gin \(lower\(.*gin_trgm_ops\)/);
  });
});

describe('create_feedback', () => {
  it('files project feedback with absolute urls, audited with source mcp and no text', async () => {
    const w = await world();
    const out = await ok(w.member, 'create_feedback', { title: '  Slow builds ', body: 'The CI takes 40 minutes.', project_slug: w.slug.toUpperCase() });
    expect(out).toEqual({
      feedback_id: expect.any(String),
      url: `${base}/feedback/${out.feedback_id}`,
      project_slug: w.slug,
      triage: false,
      triage_reason: null,
      is_anonymous: false,
      status: 'open',
      delete_after: null,
    });
    expect(out.url.startsWith('http')).toBe(true);
    const got = await ok(w.member2, 'get_feedback', { feedback_id: out.feedback_id });
    expect(got).toMatchObject({
      feedback_id: out.feedback_id,
      title: 'Slow builds',
      body: 'The CI takes 40 minutes.',
      status: 'open',
      project_slug: w.slug,
      project: { slug: w.slug, name: `Project ${w.slug}`, url: `${base}/projects/${w.slug}` },
      triage: false,
      requested_project_slug: null,
      is_anonymous: false,
      author: { id: w.member.userId, email: w.member.email, name: 'F member' },
      is_mine: false,
      comment_count: 0,
      comments: [],
      delete_after: null,
      url: `${base}/feedback/${out.feedback_id}`,
    });
    const [audit] = await sql(`select * from audit_log where action = 'feedback.created' and target_id = ?`, [out.feedback_id]);
    expect(audit).toMatchObject({ source: 'mcp', actor_user_id: w.member.userId, token_id: w.member.tokenId, target_type: 'feedback' });
    expect(audit.summary).toMatchObject({ tool: 'create_feedback', triage: false, anonymous: false, bodyLength: 24 });
    expect(JSON.stringify(audit.summary)).not.toContain('CI takes');
    expect(JSON.stringify(audit.summary)).not.toContain('Slow builds');
  });

  it('missing or unsure project goes to the triage pool; unknown and invisible slugs answer alike', async () => {
    const w = await world();
    const none = await ok(w.member, 'create_feedback', { title: 'no project', body: 'b' });
    expect(none).toMatchObject({ triage: true, triage_reason: 'no_project', project_slug: null });
    const empty = await ok(w.member, 'create_feedback', { title: 'empty project', body: 'b', project_slug: '' });
    expect(empty).toMatchObject({ triage: true, triage_reason: 'no_project' });
    const nul = await ok(w.member, 'create_feedback', { title: 'null project', body: 'b', project_slug: null });
    expect(nul).toMatchObject({ triage: true, triage_reason: 'no_project' });
    const unknown = await ok(w.member, 'create_feedback', { title: 'unknown', body: 'b', project_slug: 'no-such-project' });
    // The outsider's project exists but the member cannot see it: same answer as a missing one.
    const invisible = await ok(w.member, 'create_feedback', { title: 'invisible', body: 'b', project_slug: w.otherSlug });
    const strip = (o: any) => ({ ...o, feedback_id: undefined, url: undefined });
    expect(strip(invisible)).toEqual(strip(unknown));
    expect(invisible).toMatchObject({ triage: true, triage_reason: 'unknown_project', project_slug: null });
    // The outsider (owner of that project) does not see it: it was not filed there.
    expect(await fails(w.outsider, 'get_feedback', { feedback_id: invisible.feedback_id })).toEqual(NOT_FOUND);
    expect((await ok(w.outsider, 'list_feedback', { project_slug: w.otherSlug })).items).toEqual([]);
    // The author and the triagers see the slug that was asked for.
    expect((await ok(w.member, 'get_feedback', { feedback_id: invisible.feedback_id })).requested_project_slug).toBe(w.otherSlug);
    expect((await ok(w.coordinator, 'get_feedback', { feedbackId: invisible.feedback_id })).requested_project_slug).toBe(w.otherSlug);
    // An archived project is "unsure" too.
    await sql(`update projects set archived_at = now() where slug = ?`, [w.otherSlug]);
    expect(await ok(w.outsider, 'create_feedback', { title: 'archived', body: 'b', project_slug: w.otherSlug })).toMatchObject({
      triage: true,
      triage_reason: 'unknown_project',
    });
    // Org-wide roles file straight into any active project.
    expect(await ok(w.admin, 'create_feedback', { title: 'admin files', body: 'b', project_slug: w.slug })).toMatchObject({
      triage: false,
      project_slug: w.slug,
    });
  });

  it('body: 8000 characters are stored whole; 8001 are rejected (structured), nothing stored', async () => {
    const w = await world();
    const body = `${'x'.repeat(7999)}y`;
    const out = await ok(w.member, 'create_feedback', { title: 'long', body, project_slug: w.slug });
    const stored = await ok(w.member, 'get_feedback', { feedback_id: out.feedback_id });
    expect(stored.body).toBe(body);
    // Characters are code points: 8000 emoji fit.
    const emoji = '🙂'.repeat(8000);
    expect(
      (await ok(w.member, 'get_feedback', { feedback_id: (await ok(w.member, 'create_feedback', { title: 'emoji', body: emoji })).feedback_id })).body,
    ).toBe(emoji);

    const before = await feedbackCount();
    const err = await fails(w.member, 'create_feedback', { title: 'too long', body: 'x'.repeat(8001), project_slug: w.slug });
    expect(err).toEqual({
      error: { type: 'validation_failed', title: 'body_too_long', detail: expect.stringContaining('8001 characters; at most 8000'), field: 'body' },
    });
    expect(await fails(w.member, 'create_feedback', { title: 'too long', body: '🙂'.repeat(8001) })).toMatchObject({
      error: { title: 'body_too_long', field: 'body' },
    });
    expect(await feedbackCount()).toBe(before);
    expect((await sql(`select count(*) as n from audit_log where action = 'feedback.created' and actor_user_id = ?`, [w.member.userId]))[0].n).toBe('2');
  });

  it('input schema errors are -32602 naming the field, and nothing is stored', async () => {
    const w = await world();
    const before = await feedbackCount();
    await invalid(w.member, 'create_feedback', { body: 'b' }, 'title');
    await invalid(w.member, 'create_feedback', { title: '   ', body: 'b' }, 'title');
    await invalid(w.member, 'create_feedback', { title: 'x'.repeat(201), body: 'b' }, 'title');
    await invalid(w.member, 'create_feedback', { title: 't' }, 'body');
    await invalid(w.member, 'create_feedback', { title: 't', body: '  \n ' }, 'body');
    await invalid(w.member, 'create_feedback', { title: 't', body: 42 }, 'body');
    await invalid(w.member, 'create_feedback', { title: 't', body: 'b', is_anonymous: 'yes' }, 'is_anonymous');
    await invalid(w.member, 'create_feedback', { title: 't', body: 'b', project_slug: 'p'.repeat(81) }, 'project_slug');
    for (const d of ['P1M', 'P1Y', '30', 'P', 'PT', 'P1DT', 'P366D', 'PT0H', 'P0D', 'P53W', 'banana']) {
      await invalid(w.member, 'create_feedback', { title: 't', body: 'b', auto_delete_after: d }, 'auto_delete_after');
    }
    await invalid(w.member, 'create_feedback', { title: 't', body: 'b', surprise: 1 }, 'surprise');
    const r = await raw(w.member, 'create_feedback', { title: 'x'.repeat(201), body: 'b', auto_delete_after: 'P1M' });
    expect(r.body.error.data.errors.map((e: any) => e.field)).toEqual(['title', 'auto_delete_after']);
    expect(await feedbackCount()).toBe(before);
  });
});

describe('visibility: nothing leaks', () => {
  it("project feedback: members, owner and org-wide roles see it; a non-member and another user's ids get NOT_FOUND", async () => {
    const w = await world();
    const f = await ok(w.member, 'create_feedback', { title: 'project fb', body: 'secret details', project_slug: w.slug });
    for (const who of [w.member, w.member2, w.owner, w.admin, w.coordinator]) {
      expect((await ok(who, 'get_feedback', { feedback_id: f.feedback_id })).body).toBe('secret details');
      expect((await ok(who, 'list_feedback', { project_slug: w.slug })).items.map((i: any) => i.feedback_id)).toContain(f.feedback_id);
    }
    // Outsider, assistant (not an org-wide role for feedback) and an unknown id answer the same.
    for (const who of [w.outsider, w.assistant]) {
      expect(await fails(who, 'get_feedback', { feedback_id: f.feedback_id })).toEqual(NOT_FOUND);
      expect(await fails(who, 'get_feedback', { feedbackId: f.feedback_id.toUpperCase() })).toEqual(NOT_FOUND);
      expect((await ok(who, 'list_feedback', { project_slug: w.slug })).items).toEqual([]);
      expect((await ok(who, 'list_feedback', {})).items.map((i: any) => i.feedback_id)).not.toContain(f.feedback_id);
      expect(await fails(who, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'sneak' })).toEqual(STRUCTURED_NOT_FOUND);
    }
    expect(await fails(w.outsider, 'get_feedback', { feedback_id: randomUUID() })).toEqual(NOT_FOUND);
    expect(await fails(w.outsider, 'add_feedback_comment', { feedbackId: randomUUID(), body: 'x' })).toEqual(STRUCTURED_NOT_FOUND);
    expect(await commentCount(f.feedback_id)).toBe(0);

    // The outsider's own feedback in their project is invisible to our member.
    const theirs = await ok(w.outsider, 'create_feedback', { title: 'theirs', body: 'b', project_slug: w.otherSlug });
    expect(await fails(w.member, 'get_feedback', { feedback_id: theirs.feedback_id })).toEqual(NOT_FOUND);
    expect((await ok(w.member, 'list_feedback', { project_slug: w.otherSlug })).items).toEqual([]);

    // Leaving the project, or the project being archived, ends a member's view (the author keeps theirs).
    await sql(`delete from project_members where user_id = ?`, [w.member2.userId]);
    expect(await fails(w.member2, 'get_feedback', { feedback_id: f.feedback_id })).toEqual(NOT_FOUND);
    await sql(`update projects set archived_at = now() where slug = ?`, [w.slug]);
    expect(await fails(w.owner, 'get_feedback', { feedback_id: f.feedback_id })).toEqual(NOT_FOUND);
    expect((await ok(w.member, 'get_feedback', { feedback_id: f.feedback_id })).project_slug).toBe(w.slug);
    expect((await ok(w.admin, 'get_feedback', { feedback_id: f.feedback_id })).feedback_id).toBe(f.feedback_id);
  });

  it('triage pool: the author and admins, super admins, coordinators; not other members', async () => {
    const w = await world();
    const superAdmin = await agent('super_admin');
    const f = await ok(w.member, 'create_feedback', { title: 'triage me', body: 'b' });
    for (const who of [w.member, w.admin, superAdmin, w.coordinator]) {
      expect((await ok(who, 'get_feedback', { feedback_id: f.feedback_id })).triage).toBe(true);
      expect((await ok(who, 'list_feedback', { triage: true, limit: 100 })).items.map((i: any) => i.feedback_id)).toContain(f.feedback_id);
    }
    for (const who of [w.member2, w.owner, w.outsider, w.assistant]) {
      expect(await fails(who, 'get_feedback', { feedback_id: f.feedback_id })).toEqual(NOT_FOUND);
      expect((await ok(who, 'list_feedback', { triage: true })).items).toEqual([]);
      expect(await fails(who, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'x' })).toEqual(STRUCTURED_NOT_FOUND);
    }
    // triage false excludes it.
    expect((await ok(w.admin, 'list_feedback', { triage: false, limit: 100 })).items.map((i: any) => i.feedback_id)).not.toContain(f.feedback_id);
    // A triager may comment; the author sees it.
    const c = await ok(w.coordinator, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'looking at it' });
    expect((await ok(w.member, 'get_feedback', { feedback_id: f.feedback_id })).comments).toEqual([
      {
        comment_id: c.commentId,
        body: 'looking at it',
        author: { id: w.coordinator.userId, email: w.coordinator.email, name: 'F coordinator' },
        by_feedback_author: false,
        created_at: expect.any(String),
      },
    ]);
  });

  it('anonymous: the author is hidden from everyone else, admins included, also on their own comments', async () => {
    const w = await world();
    const f = await ok(w.member, 'create_feedback', { title: 'anon', body: 'b', project_slug: w.slug, is_anonymous: true });
    expect(f.is_anonymous).toBe(true);
    const mine = await ok(w.member, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'more from me' });
    const reply = await ok(w.owner, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'thanks' });
    for (const who of [w.member2, w.owner, w.admin, w.coordinator]) {
      const got = await ok(who, 'get_feedback', { feedback_id: f.feedback_id });
      expect(got).toMatchObject({ is_anonymous: true, author: null, is_mine: false });
      expect(got.comments).toMatchObject([
        { comment_id: mine.commentId, author: null, by_feedback_author: true },
        { comment_id: reply.commentId, author: { id: w.owner.userId }, by_feedback_author: false },
      ]);
      expect(JSON.stringify(got)).not.toContain(w.member.userId);
      expect(JSON.stringify(got)).not.toContain(w.member.email);
      const item = (await ok(who, 'list_feedback', { project_slug: w.slug })).items.find((i: any) => i.feedback_id === f.feedback_id);
      expect(item).toMatchObject({ author: null, is_mine: false, comment_count: 2 });
    }
    // `mine` never reveals someone else's anonymous feedback.
    expect((await ok(w.admin, 'list_feedback', { mine: true })).items).toEqual([]);
    const own = await ok(w.member, 'get_feedback', { feedback_id: f.feedback_id });
    expect(own).toMatchObject({
      author: { id: w.member.userId },
      is_mine: true,
      comments: [{ author: { id: w.member.userId }, by_feedback_author: true }, {}],
    });
    expect((await ok(w.member, 'list_feedback', { mine: true })).items.map((i: any) => i.feedback_id)).toEqual([f.feedback_id]);
    // Stored for abuse handling.
    expect((await sql('select author_user_id from feedback where id = ?', [f.feedback_id]))[0].author_user_id).toBe(w.member.userId);
  });
});

describe('list_feedback', () => {
  it('newest first, filters and limits; bad filters are -32602', async () => {
    const w = await world();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await ok(w.owner, 'create_feedback', { title: `n${i}`, body: 'b', project_slug: w.slug })).feedback_id);
      h.clock.advance(1000);
    }
    const list = await ok(w.member, 'list_feedback', { project_slug: w.slug });
    expect(list.items.map((i: any) => i.feedback_id)).toEqual([...ids].reverse());
    expect(list.count).toBe(3);
    expect(list.items[0]).toEqual({
      feedback_id: ids[2],
      title: 'n2',
      status: 'open',
      project_slug: w.slug,
      triage: false,
      is_anonymous: false,
      author: { id: w.owner.userId, email: w.owner.email, name: 'F member' },
      is_mine: false,
      comment_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      delete_after: null,
      url: `${base}/feedback/${ids[2]}`,
    });
    expect((await ok(w.member, 'list_feedback', { project_slug: w.slug, limit: 2 })).items.map((i: any) => i.feedback_id)).toEqual([ids[2], ids[1]]);
    expect((await ok(w.member, 'list_feedback', { project_slug: w.slug, status: 'resolved' })).items).toEqual([]);
    expect((await ok(w.member, 'list_feedback', { project_slug: w.slug, mine: true })).items).toEqual([]);
    expect((await ok(w.owner, 'list_feedback', { mine: true })).count).toBe(3);
    await invalid(w.member, 'list_feedback', { limit: 0 }, 'limit');
    await invalid(w.member, 'list_feedback', { limit: 101 }, 'limit');
    await invalid(w.member, 'list_feedback', { status: 'bogus' }, 'status');
    await invalid(w.member, 'list_feedback', { triage: 'yes' }, 'triage');
    await invalid(w.member, 'get_feedback', {}, 'feedback_id');
    await invalid(w.member, 'get_feedback', { feedback_id: 'nope' }, 'feedback_id');
    await invalid(w.member, 'get_feedback', { feedback_id: ids[0], feedbackId: ids[1] }, 'feedbackId');
  });
});

describe('add_feedback_comment', () => {
  it('adds a comment, audited; client_message_id makes retries return the same comment', async () => {
    const w = await world();
    const f = await ok(w.member, 'create_feedback', { title: 'c', body: 'b', project_slug: w.slug });
    const first = await ok(w.member2, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'same here', client_message_id: 'msg-1' });
    expect(first).toEqual({ commentId: expect.any(String), deduplicated: false });
    const again = await ok(w.member2, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'same here', client_message_id: 'msg-1' });
    expect(again).toEqual({ commentId: first.commentId, deduplicated: true });
    expect(await commentCount(f.feedback_id)).toBe(1);
    // Another author may use the same client_message_id: it is scoped to (feedback, author).
    const other = await ok(w.member, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'same here', client_message_id: 'msg-1' });
    expect(other.commentId).not.toBe(first.commentId);
    // Reusing it for a different body is a structured conflict; nothing is written.
    expect(await fails(w.member2, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'changed', client_message_id: 'msg-1' })).toEqual({
      error: { type: 'conflict', title: 'client_message_id_reused', detail: expect.any(String), field: 'client_message_id' },
    });
    expect(await commentCount(f.feedback_id)).toBe(2);
    const audits = await sql(`select * from audit_log where action = 'feedback.comment.added' and target_id = ? order by created_at`, [f.feedback_id]);
    expect(audits).toHaveLength(2);
    expect(audits[0]).toMatchObject({ source: 'mcp', actor_user_id: w.member2.userId, target_type: 'feedback' });
    expect(audits[0].summary).toEqual({ tool: 'add_feedback_comment', commentId: first.commentId, bodyLength: 9, clientMessageId: true });

    const got = await ok(w.owner, 'get_feedback', { feedback_id: f.feedback_id });
    expect(got.comment_count).toBe(2);
    expect(got.comments.map((c: any) => c.comment_id)).toEqual([first.commentId, other.commentId]);
    expect(got.comments[0]).toMatchObject({ body: 'same here', author: { id: w.member2.userId, email: w.member2.email }, by_feedback_author: false });
    expect(got.comments[1].by_feedback_author).toBe(true);
  });

  it('concurrent retries with one client_message_id make one comment', async () => {
    const w = await world();
    const f = await ok(w.member, 'create_feedback', { title: 'race', body: 'b', project_slug: w.slug });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => ok(w.member2, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'once', client_message_id: 'race-1' })),
    );
    expect(new Set(results.map((r) => r.commentId)).size).toBe(1);
    expect(results.filter((r) => !r.deduplicated)).toHaveLength(1);
    expect(await commentCount(f.feedback_id)).toBe(1);
    // Concurrent distinct comments on one feedback all land (writers of one feedback are serialised, never deadlocked).
    const many = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        ok(w.member2, 'add_feedback_comment', { feedbackId: f.feedback_id, body: `c${i}`, ...(i % 2 ? { client_message_id: `m${i}` } : {}) }),
      ),
    );
    expect(new Set(many.map((r) => r.commentId)).size).toBe(6);
    expect(await commentCount(f.feedback_id)).toBe(7);
  });

  it('body bounds: 8000 accepted, 8001 structured body_too_long, blank -32602; bad ids -32602', async () => {
    const w = await world();
    const f = await ok(w.member, 'create_feedback', { title: 'b', body: 'b', project_slug: w.slug });
    await ok(w.member, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'z'.repeat(8000) });
    expect(await fails(w.member, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'z'.repeat(8001) })).toEqual({
      error: { type: 'validation_failed', title: 'body_too_long', detail: expect.stringContaining('8001'), field: 'body' },
    });
    expect(await commentCount(f.feedback_id)).toBe(1);
    await invalid(w.member, 'add_feedback_comment', { feedbackId: f.feedback_id, body: ' ' }, 'body');
    await invalid(w.member, 'add_feedback_comment', { feedbackId: 'F-1', body: 'x' }, 'feedbackId');
    await invalid(w.member, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'x', client_message_id: 'm'.repeat(101) }, 'client_message_id');
    await invalid(w.member, 'add_feedback_comment', { feedback_id: f.feedback_id, body: 'x' }, 'feedbackId');
  });
});

describe('auto-delete', () => {
  it('hides feedback at delete_after and the feedback.auto-delete job deletes it with its comments, audited', async () => {
    const task = MAINTENANCE_TASKS.find((t) => t.name === 'feedback.auto-delete');
    expect(task).toBeDefined();
    const w = await world();
    const t0 = h.clock.now().getTime();
    const soon = await ok(w.member, 'create_feedback', { title: 'soon', body: 'b', project_slug: w.slug, auto_delete_after: 'PT2H' });
    expect(new Date(soon.delete_after).getTime() - t0).toBeGreaterThanOrEqual(2 * 3_600_000);
    expect(new Date(soon.delete_after).getTime() - t0).toBeLessThan(2 * 3_600_000 + 60_000);
    const soonTriage = await ok(w.member, 'create_feedback', { title: 'soon too', body: 'b', auto_delete_after: 'pt1h' });
    const later = await ok(w.member, 'create_feedback', { title: 'later', body: 'b', project_slug: w.slug, auto_delete_after: 'P1D' });
    const keep = await ok(w.member, 'create_feedback', { title: 'keep', body: 'b', project_slug: w.slug });
    await ok(w.member2, 'add_feedback_comment', { feedbackId: soon.feedback_id, body: 'c1' });
    await ok(w.member2, 'add_feedback_comment', { feedbackId: soon.feedback_id, body: 'c2' });

    // Nothing is due yet.
    expect(await task!.run(h.svc.deps, h.clock.now())).toEqual({ processed: 0 });
    expect((await ok(w.member, 'get_feedback', { feedback_id: soon.feedback_id })).delete_after).toBe(soon.delete_after);

    h.clock.advance(2 * 3_600_000 + 1000);
    // Hidden from the moment it is due, before the job runs; comments refused too.
    expect(await fails(w.member, 'get_feedback', { feedback_id: soon.feedback_id })).toEqual(NOT_FOUND);
    expect(await fails(w.admin, 'get_feedback', { feedback_id: soonTriage.feedback_id })).toEqual(NOT_FOUND);
    expect(await fails(w.member2, 'add_feedback_comment', { feedbackId: soon.feedback_id, body: 'late' })).toEqual(STRUCTURED_NOT_FOUND);
    const listed = (await ok(w.member, 'list_feedback', { mine: true })).items.map((i: any) => i.feedback_id);
    expect(listed).toEqual([keep.feedback_id, later.feedback_id]);
    expect(await commentCount(soon.feedback_id)).toBe(2);

    expect(await task!.run(h.svc.deps, h.clock.now())).toEqual({ processed: 2 });
    expect(await sql('select id from feedback where id = any(?::uuid[])', [`{${soon.feedback_id},${soonTriage.feedback_id}}`])).toEqual([]);
    expect(await commentCount(soon.feedback_id)).toBe(0);
    const audits = await sql(`select * from audit_log where action = 'feedback.auto_deleted' order by target_id`);
    expect(audits.map((a) => a.target_id).sort()).toEqual([soon.feedback_id, soonTriage.feedback_id].sort());
    const a = audits.find((x) => x.target_id === soon.feedback_id);
    expect(a).toMatchObject({ source: 'job', actor_user_id: null, target_type: 'feedback' });
    expect(a.summary).toMatchObject({ projectId: expect.any(String), triage: false, anonymous: false, commentCount: 2 });
    // Running again finds nothing; the others are still there.
    expect(await task!.run(h.svc.deps, h.clock.now())).toEqual({ processed: 0 });
    expect((await ok(w.member, 'get_feedback', { feedback_id: later.feedback_id })).feedback_id).toBe(later.feedback_id);

    h.clock.advance(24 * 3_600_000);
    expect(await task!.run(h.svc.deps, h.clock.now())).toEqual({ processed: 1 });
    expect((await ok(w.member, 'get_feedback', { feedback_id: keep.feedback_id })).feedback_id).toBe(keep.feedback_id);
  });
});
