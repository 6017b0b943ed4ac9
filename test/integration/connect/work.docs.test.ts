// fluxdesk.work.v1 DocService over Connect (one flow over gRPC): the same operations as the
// document tools list_docs ... untag_doc (SPEC C, "Document states", scopes read:docs,
// write:docs:draft, write:docs:publish; What the service does 8: project isolation).
import { randomBytes } from 'node:crypto';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema, ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { DocService } from '../../../gen/fluxdesk/work/v1/docs_pb.js';
import { agents, type AgentUser } from '../../helpers/agents.js';
import { bearer, closeSessions, duringCall, timestampMs, transportFor, type Protocol } from '../../helpers/connect.js';
import { operator, startHarness, type Harness } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

const { agent, withToken } = agents(() => h);
const docs = (a: AgentUser, protocol: Protocol = 'connect'): Client<typeof DocService> =>
  createClient(DocService, transportFor(h, protocol, [bearer(a.token)]));

async function expectCode(p: Promise<unknown>, code: Code, errorCode?: string): Promise<ConnectError> {
  let err: ConnectError | undefined;
  try {
    await p;
  } catch (e) {
    err = ConnectError.from(e);
  }
  if (!err) throw new Error('expected the call to fail');
  expect(err.code, err.message).toBe(code);
  if (errorCode) expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBe(errorCode);
  return err;
}
const violations = (err: ConnectError) =>
  err
    .findDetails(ValidationErrorDetailSchema)[0]
    ?.violations.map((v) => v.field)
    .sort();

async function world() {
  // The author is named: its name is asserted as a draft's author.
  const [owner, lead, author, member, outsider, admin] = [
    await agent(),
    await agent(),
    await agent('member', undefined, 'Doc member'),
    await agent(),
    await agent(),
    await agent('admin'),
  ];
  const slug = `d${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', {
    slug,
    name: `Docs ${slug}`,
    owner: owner.email,
    members: [author.email, member.email],
    leads: [lead.email],
    tech_leads: [],
  });
  const otherSlug = `o${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', { slug: otherSlug, name: 'Other', owner: outsider.email, members: [], leads: [], tech_leads: [] });
  return { slug, otherSlug, owner, lead, author, member, outsider, admin };
}

describe('DocService', () => {
  it("draft -> publish -> update -> archive -> restore, with the tools' rules and audit source connect", async () => {
    const w = await world();
    const d = await docs(w.author).createDocDraft({ projectSlug: w.slug, title: 'Release checklist', body: 'Step one: freeze', kind: 'runbook' });
    expect(d).toMatchObject({ projectSlug: w.slug, spaceSlug: w.slug, slug: 'release-checklist', status: 'draft' });
    expect(d.pageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(d.url).toContain('/release-checklist');

    // A draft is the author's (and leads'): a plain member does not see it.
    await expectCode(docs(w.member).getDoc({ pageId: d.pageId }), Code.NotFound);
    expect((await docs(w.lead).listDocDrafts({ projectSlug: w.slug })).drafts.map((x) => [x.pageId, x.authorName])).toEqual([[d.pageId, 'Doc member']]);
    await expectCode(docs(w.lead).updateDocDraft({ pageId: d.pageId, title: 'Mine now' }), Code.PermissionDenied);

    const u = await docs(w.author).updateDocDraft({
      spaceSlug: w.slug,
      pageSlug: 'release-checklist',
      body: 'Step one: freeze the branch',
      changeSummary: 'detail',
    });
    expect(u).toMatchObject({ pageId: d.pageId, status: 'draft' });

    const publishOnly = await withToken(w.author, ['write:docs:draft', 'read:docs']);
    const scopeErr = await expectCode(docs(publishOnly).publishDocDraft({ pageId: d.pageId }), Code.PermissionDenied, 'missing_scope');
    expect(scopeErr.findDetails(ErrorInfoSchema)[0]?.metadata.required_scope).toBe('write:docs:publish');
    await expectCode(docs(w.member).publishDocDraft({ pageId: d.pageId }), Code.NotFound);
    const { out: p, from, to } = await duringCall(h, () => docs(w.author).publishDocDraft({ pageId: d.pageId }));
    expect(p).toMatchObject({ pageId: d.pageId, status: 'published' });
    expect(timestampMs(p.publishedAt)).toBeGreaterThanOrEqual(from);
    expect(timestampMs(p.publishedAt)).toBeLessThanOrEqual(to);
    await expectCode(docs(w.author).publishDocDraft({ pageId: d.pageId }), Code.Aborted, 'not_a_draft');

    const got = await docs(w.member).getDoc({ pageId: d.pageId });
    expect(got).toMatchObject({
      id: d.pageId,
      title: 'Release checklist',
      body: 'Step one: freeze the branch',
      kind: 'runbook',
      status: 'published',
      projectSlug: w.slug,
    });
    expect(got.publishedAt).toBeDefined();

    const ud = await docs(w.lead).updateDoc({ pageId: d.pageId, title: 'Release checklist v2' });
    expect(ud).toMatchObject({ status: 'published', revision: 2 });
    await expectCode(docs(w.member).updateDoc({ pageId: d.pageId, title: 'no' }), Code.PermissionDenied);

    const child = await docs(w.author).createDocDraft({ spaceSlug: w.slug, title: 'Child', parentPageId: d.pageId });
    const a = await docs(w.owner).archiveDoc({ pageId: d.pageId });
    expect(a).toMatchObject({ status: 'archived', archivedCount: 2 });
    await expectCode(docs(w.author).updateDocDraft({ pageId: child.pageId, title: 'x' }), Code.Aborted, 'not_a_draft');
    await expectCode(docs(w.author).restoreDoc({ pageId: child.pageId }), Code.Aborted, 'archived_with_ancestor');
    const r = await docs(w.owner).restoreDoc({ pageId: d.pageId });
    expect(r).toMatchObject({ status: 'published', restoredCount: 2 });

    // parent_page_id "" moves the child to the top of its space (the tool's null).
    await docs(w.author).updateDocDraft({ pageId: child.pageId, parentPageId: '' });
    const [row] = await sql('select parent_page_id from doc_pages where id = ?', [child.pageId]);
    expect(row.parent_page_id).toBeNull();

    const audit = await sql(`select distinct source from audit_log where target_id = ?`, [d.pageId]);
    expect(audit).toEqual([{ source: 'connect' }]);
  });

  it('list, search and tags are limited to what the caller can see', async () => {
    const w = await world();
    const d = await docs(w.author).createDocDraft({ projectSlug: w.slug, title: 'Incident runbook', body: 'Page the on-call engineer', kind: 'runbook' });
    await docs(w.author).publishDocDraft({ pageId: d.pageId });
    const hidden = await docs(w.outsider).createDocDraft({ projectSlug: w.otherSlug, title: 'Incident secrets', body: 'on-call rota' });
    await docs(w.outsider).publishDocDraft({ pageId: hidden.pageId });

    const listed = await docs(w.member).listDocs({ projectSlug: w.slug });
    expect(listed.count).toBe(1);
    expect(listed.docs[0]).toMatchObject({ id: d.pageId, kind: 'runbook', status: 'published', spaceSlug: w.slug });
    expect(listed.docs[0]!.updatedAt).toBeDefined();

    const found = await docs(w.member).searchDocs({ query: 'on-call' });
    expect(found).toMatchObject({ query: 'on-call', count: 1 });
    expect(found.hits[0]).toMatchObject({ id: d.pageId, matchedField: 'body' });
    expect(found.hits[0]!.snippet).toContain('on-call');
    await expectCode(docs(w.member).getDoc({ pageId: hidden.pageId }), Code.NotFound);
    await expectCode(docs(w.member).tagDoc({ pageId: hidden.pageId, tags: ['x'] }), Code.NotFound);

    const t = await docs(w.author).tagDoc({ pageId: d.pageId, tags: ['Ops', 'oncall'] });
    expect(t).toMatchObject({ status: 'published', tags: ['oncall', 'ops'].sort(), added: expect.arrayContaining(['ops', 'oncall']), removed: [] });
    await docs(w.outsider).tagDoc({ pageId: hidden.pageId, tags: ['ops'] });
    const tags = await docs(w.member).listTags({});
    expect(tags.count).toBe(2);
    expect(tags.tags.map((x) => [x.tag, x.count]).sort()).toEqual([
      ['oncall', 1],
      ['ops', 1],
    ]);

    const byTag = await docs(w.member).searchByTags({ tags: ['ops', 'oncall'], match: 'all' });
    expect(byTag).toMatchObject({ match: 'all', count: 1 });
    expect(byTag.docs[0]?.doc?.id).toBe(d.pageId);
    expect([...byTag.docs[0]!.tags].sort()).toEqual(['oncall', 'ops']);

    const un = await docs(w.author).untagDoc({ pageId: d.pageId, tags: ['ops'] });
    expect(un).toMatchObject({ tags: ['oncall'], removed: ['ops'] });
    expect((await docs(w.author).untagDoc({ pageId: d.pageId, removeAll: true })).tags).toEqual([]);
  });

  it('invalid input lists every issue under the request fields; read scope does not write', async () => {
    const w = await world();
    const noAddress = await expectCode(docs(w.author).getDoc({}), Code.InvalidArgument, 'schema_invalid');
    expect(violations(noAddress)).toEqual(['page_id']);
    const untag = await expectCode(docs(w.author).untagDoc({ pageId: 'not-a-uuid' }), Code.InvalidArgument);
    expect(violations(untag)).toEqual(['page_id', 'tags']);
    const create = await expectCode(docs(w.author).createDocDraft({ title: '', kind: 'poem' }), Code.InvalidArgument);
    expect(violations(create)).toEqual(['kind', 'title']);
    const where = await expectCode(docs(w.author).createDocDraft({ title: 'x' }), Code.InvalidArgument);
    expect(violations(where)).toEqual(['project_slug']);
    await expectCode(docs(w.author).searchByTags({ tags: [] }), Code.InvalidArgument);
    const reader = await withToken(w.author, ['read:docs']);
    expect((await docs(reader).listDocs({})).count).toBe(0);
    const err = await expectCode(docs(reader).createDocDraft({ projectSlug: w.slug, title: 'x' }), Code.PermissionDenied, 'missing_scope');
    expect(err.findDetails(ErrorInfoSchema)[0]?.metadata.required_scope).toBe('write:docs:draft');
    await expectCode(docs(w.outsider).createDocDraft({ projectSlug: w.slug, title: 'x' }), Code.NotFound);
  });
});

it('DocService over gRPC: create, read, and isolation', async () => {
  const w = await world();
  const d = await docs(w.author, 'grpc').createDocDraft({ projectSlug: w.slug, title: 'Over gRPC' });
  await docs(w.author, 'grpc').publishDocDraft({ pageId: d.pageId });
  expect((await docs(w.member, 'grpc').getDoc({ spaceSlug: d.spaceSlug, pageSlug: d.slug })).title).toBe('Over gRPC');
  await expectCode(docs(w.outsider, 'grpc').getDoc({ pageId: d.pageId }), Code.NotFound, 'not_found');
});
