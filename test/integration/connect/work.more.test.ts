// fluxdesk.work.v1 FeedbackService, RepositoryService and SearchService over Connect (and one
// call over gRPC): the same operations as the tools list_feedback, get_feedback,
// create_feedback, add_feedback_comment, list_project_repositories,
// list_project_repository_commits, bind_project_repository, unbind_project_repository and
// search (SPEC C, "Agent token scopes"; What the service does 8: project isolation).
import { randomBytes } from 'node:crypto';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema, ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { FeedbackService } from '../../../gen/fluxdesk/work/v1/feedback_pb.js';
import { RepositoryService } from '../../../gen/fluxdesk/work/v1/repositories_pb.js';
import { SearchService } from '../../../gen/fluxdesk/work/v1/search_pb.js';
import { TaskService } from '../../../gen/fluxdesk/work/v1/tasks_pb.js';
import { Health, HealthCheckResponse_ServingStatus } from '../../../gen/grpc/health/v1/health_pb.js';
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
const client = <S extends typeof FeedbackService | typeof RepositoryService | typeof SearchService | typeof TaskService>(
  s: S,
  a: AgentUser,
  protocol: Protocol = 'connect',
) => createClient(s, transportFor(h, protocol, [bearer(a.token)]));
const feedback = (a: AgentUser, p?: Protocol) => client(FeedbackService, a, p);
const repos = (a: AgentUser, p?: Protocol) => client(RepositoryService, a, p);
const searcher = (a: AgentUser, p?: Protocol) => client(SearchService, a, p);

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
const requiredScope = (err: ConnectError) => err.findDetails(ErrorInfoSchema)[0]?.metadata.required_scope;

async function world() {
  const [owner, lead, member, outsider, admin] = [await agent(), await agent(), await agent(), await agent(), await agent('admin')];
  const slug = `f${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', { slug, name: `Fb ${slug}`, owner: owner.email, members: [member.email], leads: [lead.email], tech_leads: [] });
  const otherSlug = `o${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', { slug: otherSlug, name: 'Other', owner: outsider.email, members: [], leads: [], tech_leads: [] });
  return { slug, otherSlug, owner, lead, member, outsider, admin };
}

describe('FeedbackService', () => {
  it('create, list, get, comment; anonymity and project isolation as the tools', async () => {
    const w = await world();
    const {
      out: c,
      from,
      to,
    } = await duringCall(h, () =>
      feedback(w.member).createFeedback({
        title: 'Build is slow',
        body: 'CI takes 40 minutes',
        projectSlug: w.slug,
        isAnonymous: true,
        autoDeleteAfter: 'P30D',
      }),
    );
    expect(c).toMatchObject({ projectSlug: w.slug, triage: false, isAnonymous: true, status: 'open' });
    expect(c.triageReason).toBeUndefined();
    // delete_after = the creation time + P30D.
    const created = timestampMs(c.deleteAfter) - 30 * 24 * 3600 * 1000;
    expect(created).toBeGreaterThanOrEqual(from);
    expect(created).toBeLessThanOrEqual(to);

    const listed = await feedback(w.owner).listFeedback({ projectSlug: w.slug });
    expect(listed.count).toBe(1);
    expect(listed.items[0]).toMatchObject({ feedbackId: c.feedbackId, title: 'Build is slow', isAnonymous: true, isMine: false });
    expect(listed.items[0]!.author).toBeUndefined();
    expect((await feedback(w.member).listFeedback({ mine: true })).items[0]?.author?.id).toBe(w.member.userId);
    expect((await feedback(w.outsider).listFeedback({})).items).toEqual([]);
    await expectCode(feedback(w.outsider).getFeedback({ feedbackId: c.feedbackId }), Code.NotFound);

    const first = await feedback(w.owner).addFeedbackComment({ feedbackId: c.feedbackId, body: 'Looking', clientMessageId: 'm1' });
    expect(first.deduplicated).toBe(false);
    expect(await feedback(w.owner).addFeedbackComment({ feedbackId: c.feedbackId, body: 'Looking', clientMessageId: 'm1' })).toEqual(
      expect.objectContaining({ commentId: first.commentId, deduplicated: true }),
    );
    await expectCode(feedback(w.outsider).addFeedbackComment({ feedbackId: c.feedbackId, body: 'hi' }), Code.NotFound);

    const got = await feedback(w.owner).getFeedback({ feedbackId: c.feedbackId });
    expect(got).toMatchObject({ body: 'CI takes 40 minutes', project: { slug: w.slug }, feedback: { feedbackId: c.feedbackId, commentCount: 1 } });
    expect(got.comments.map((x) => [x.commentId, x.body, x.author?.id])).toEqual([[first.commentId, 'Looking', w.owner.userId]]);
    expect(got.requestedProjectSlug).toBeUndefined();

    const pooled = await feedback(w.member).createFeedback({ title: 'Where?', body: 'no project', projectSlug: w.otherSlug });
    expect(pooled).toMatchObject({ triage: true, triageReason: 'unknown_project' });
    expect(pooled.projectSlug).toBeUndefined();
    expect((await sql(`select distinct source from audit_log where target_id = ?`, [c.feedbackId])).map((r) => r.source)).toEqual(['connect']);
  });

  it('errors and scopes: invalid input under proto field names; read:feedback cannot write', async () => {
    const w = await world();
    const bad = await expectCode(feedback(w.member).addFeedbackComment({ feedbackId: 'nope', body: '' }), Code.InvalidArgument);
    expect(violations(bad)).toEqual(['body', 'feedback_id']);
    const tooLong = await expectCode(feedback(w.member).createFeedback({ title: 'x', body: 'y'.repeat(8001) }), Code.InvalidArgument);
    expect(tooLong.findDetails(ErrorInfoSchema)[0]?.metadata.field).toBe('body');
    expect((await feedback(w.member).listFeedback({ mine: true })).items).toEqual([]);
    const reader = await withToken(w.member, ['read:feedback']);
    expect(requiredScope(await expectCode(feedback(reader).createFeedback({ title: 'x', body: 'y' }), Code.PermissionDenied, 'missing_scope'))).toBe(
      'write:feedback',
    );
    const writer = await withToken(w.member, ['write:feedback']);
    expect(requiredScope(await expectCode(feedback(writer).listFeedback({}), Code.PermissionDenied, 'missing_scope'))).toBe('read:feedback');
  });
});

describe('RepositoryService', () => {
  it('bind (lead), list, commits, unbind; members read, outsiders get not_found, members cannot bind', async () => {
    const w = await world();
    const bound = await repos(w.lead).bindProjectRepository({ projectSlug: w.slug, provider: 'gitea', repoUrl: 'https://git.example.com/Team/Service.git' });
    expect(bound).toMatchObject({
      projectSlug: w.slug,
      provider: 'gitea',
      fullName: 'Team/Service',
      webUrl: 'https://git.example.com/Team/Service',
      defaultBranch: 'main',
      created: true,
      restored: false,
    });
    expect(bound.webhookSecret).toMatch(/^whsec_/);
    const again = await repos(w.lead).bindProjectRepository({ projectSlug: w.slug, provider: 'gitea', repoUrl: 'https://git.example.com/team/service' });
    expect(again).toMatchObject({ repoId: bound.repoId, created: false });
    expect(again.webhookSecret).toBeUndefined();

    const listed = await repos(w.member).listProjectRepositories({ projectSlug: w.slug });
    expect(listed).toMatchObject({
      projectSlug: w.slug,
      count: 1,
      repositories: [{ id: bound.repoId, fullName: 'Team/Service', isMonitored: false, archived: false }],
    });
    const commits = await repos(w.member).listProjectRepositoryCommits({ projectSlug: w.slug, branch: 'main' });
    expect(commits).toMatchObject({ projectSlug: w.slug, count: 0, branchFilter: 'main', commits: [] });
    await expectCode(repos(w.outsider).listProjectRepositories({ projectSlug: w.slug }), Code.NotFound);
    await expectCode(
      repos(w.outsider).bindProjectRepository({ projectSlug: w.slug, provider: 'gitea', repoUrl: 'https://git.example.com/x/y' }),
      Code.NotFound,
    );
    await expectCode(
      repos(w.member).bindProjectRepository({ projectSlug: w.slug, provider: 'gitea', repoUrl: 'https://git.example.com/x/y' }),
      Code.PermissionDenied,
    );

    const readOnly = await withToken(w.lead, ['read:*']);
    expect(
      requiredScope(
        await expectCode(
          repos(readOnly).unbindProjectRepository({ projectSlug: w.slug, repoUrl: 'https://git.example.com/Team/Service' }),
          Code.PermissionDenied,
          'missing_scope',
        ),
      ),
    ).toBe('code:repo:bind');
    expect(await repos(w.lead).unbindProjectRepository({ projectSlug: w.slug, repoUrl: 'https://git.example.com/Team/Service' })).toMatchObject({
      repoId: bound.repoId,
      archived: true,
    });
    expect((await repos(w.member).listProjectRepositories({ projectSlug: w.slug })).repositories[0]?.archived).toBe(true);

    const bad = await expectCode(repos(w.lead).bindProjectRepository({ projectSlug: w.slug, provider: 'svn', repoUrl: 'not a url' }), Code.InvalidArgument);
    expect(violations(bad)).toEqual(['provider', 'repo_url']);
  });
});

describe('SearchService', () => {
  it("finds what the caller may see, with the tool's hit fields; read:* needed", async () => {
    const w = await world();
    const k = `zq${randomBytes(4).toString('hex')}`;
    const t = await client(TaskService, w.owner).createTask({ title: `Plan ${k} migration`, projectSlug: w.slug });
    await client(TaskService, w.outsider).createTask({ title: `Other ${k}`, projectSlug: w.otherSlug });
    const r = await searcher(w.member).search({ query: k, types: ['task'], filters: { projectSlug: w.slug } });
    expect(r).toMatchObject({ query: k, count: 1 });
    expect(r.hits[0]).toMatchObject({ type: 'task', id: t.taskId, matchedField: 'title' });
    expect(r.hits[0]!.snippet).toContain(k);
    expect(r.hits[0]!.createdAt).toBeDefined();
    expect((await searcher(w.member).search({ query: k, types: [] })).count).toBe(1);
    const bad = await expectCode(searcher(w.member).search({ query: '', types: ['planet'], filters: { since: 'yesterday' } }), Code.InvalidArgument);
    expect(violations(bad)).toEqual(['filters.since', 'query', 'types.0']);
    const tasksOnly = await withToken(w.member, ['read:tasks']);
    expect(requiredScope(await expectCode(searcher(tasksOnly).search({ query: k, types: [] }), Code.PermissionDenied, 'missing_scope'))).toBe('read:*');
    expect((await searcher(w.member, 'grpc').search({ query: k, types: [] })).hits.map((x) => x.id)).toEqual([t.taskId]);
  });
});

it('grpc.health.v1 reports FeedbackService, RepositoryService and SearchService', async () => {
  const health = createClient(Health, transportFor(h, 'grpc'));
  for (const s of ['fluxdesk.work.v1.FeedbackService', 'fluxdesk.work.v1.RepositoryService', 'fluxdesk.work.v1.SearchService']) {
    expect((await health.check({ service: s })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  }
});
