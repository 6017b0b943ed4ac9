// fluxdesk.work.v1 ProjectService and TaskService over Connect (and gRPC / gRPC-Web): the same
// operations as the MCP tools list_projects, list_tasks, get_task, create_task,
// publish_task_draft, claim_task, update_task_status, add_task_comment,
// get_owner_intake_templates, submit_daily_update (SPEC C, "Agent token scopes"; What the service
// does 8: project isolation), plus membership management by project owners and leads.
import { randomBytes } from 'node:crypto';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema, ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { Health, HealthCheckResponse_ServingStatus } from '../../../gen/grpc/health/v1/health_pb.js';
import { ProjectService } from '../../../gen/fluxdesk/work/v1/projects_pb.js';
import { TaskService } from '../../../gen/fluxdesk/work/v1/tasks_pb.js';
import { agents, type AgentUser } from '../../helpers/agents.js';
import { bearer, closeSessions, duringCall, timestampMs, transportFor, type Protocol } from '../../helpers/connect.js';
import { newPersonalToken, operator, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';

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

const projects = (a: AgentUser | string | undefined, protocol: Protocol = 'connect'): Client<typeof ProjectService> =>
  createClient(ProjectService, transportFor(h, protocol, [bearer(typeof a === 'object' ? a.token : a)]));
const tasks = (a: AgentUser | string | undefined, protocol: Protocol = 'connect'): Client<typeof TaskService> =>
  createClient(TaskService, transportFor(h, protocol, [bearer(typeof a === 'object' ? a.token : a)]));

async function fails(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}
const info = (err: ConnectError) => err.findDetails(ErrorInfoSchema)[0];
const violations = (err: ConnectError) =>
  err
    .findDetails(ValidationErrorDetailSchema)[0]
    ?.violations.map((v) => v.field)
    .sort();

async function expectCode(p: Promise<unknown>, code: Code, errorCode?: string): Promise<ConnectError> {
  const err = await fails(p);
  expect(err.code, err.message).toBe(code);
  if (errorCode) expect(info(err)?.code).toBe(errorCode);
  return err;
}

/** A project with one user per project role, plus an outsider (owner of another project) and org-wide roles. */
async function world() {
  const [owner, lead, techLead, member, outsider, admin, superAdmin, coordinator] = [
    await agent(),
    await agent(),
    await agent(),
    await agent(),
    await agent(),
    await agent('admin'),
    await agent('super_admin'),
    await agent('coordinator'),
  ];
  const slug = `p${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', {
    slug,
    name: `Project ${slug}`,
    owner: owner.email,
    members: [member.email],
    leads: [lead.email],
    tech_leads: [techLead.email],
  });
  const otherSlug = `q${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', { slug: otherSlug, name: `Other ${otherSlug}`, owner: outsider.email, members: [], leads: [], tech_leads: [] });
  return { slug, code: slug.toUpperCase(), otherSlug, owner, lead, techLead, member, outsider, admin, superAdmin, coordinator };
}

const roleIn = async (a: AgentUser, slug: string) => (await projects(a).listProjects({})).items.find((p) => p.slug === slug)?.role ?? null;
const memberAudit = (slug: string) =>
  sql(
    `select action, source, actor_user_id, token_id, summary from audit_log where action like 'project.member.%' and target_id = (select id::text from projects where slug = ?) order by created_at`,
    [slug],
  );

describe('ProjectService.ListProjects (list_projects, read:meta)', () => {
  it("lists the caller's projects with their role; admins see every project, role unset where not a member", async () => {
    const w = await world();
    const mine = await projects(w.member).listProjects({});
    expect(mine.items.map((p) => p.slug)).toEqual([w.slug]);
    expect(mine.items[0]).toMatchObject({
      slug: w.slug,
      name: `Project ${w.slug}`,
      role: 'member',
      url: `${h.svc.deps.config.publicBaseUrl}/projects/${w.slug}`,
    });
    expect(mine.items[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await projects(w.outsider).listProjects({})).items.map((p) => p.slug)).toEqual([w.otherSlug]);
    const all = await projects(w.admin).listProjects({});
    expect(all.items.find((p) => p.slug === w.slug)?.role).toBeUndefined();
    expect(all.items.find((p) => p.slug === w.otherSlug)).toBeDefined();
  });

  it('needs read:meta; needs an agent token', async () => {
    const w = await world();
    const tasksOnly = await withToken(w.member, ['read:tasks']);
    const err = await expectCode(projects(tasksOnly).listProjects({}), Code.PermissionDenied, 'missing_scope');
    expect(info(err)?.metadata.required_scope).toBe('read:meta');
    await expectCode(projects(undefined).listProjects({}), Code.Unauthenticated);
    await expectCode(projects((await newPersonalToken(h)).token).listProjects({}), Code.Unauthenticated, 'token_mismatch');
    await expectCode(projects(`sk-svc-${'x'.repeat(32)}`).listProjects({}), Code.Unauthenticated);
  });
});

describe('ProjectService membership management (write:projects)', () => {
  it('the owner adds a member (idempotent), the new member then sees the project and its tasks; audited with caller and token', async () => {
    const w = await world();
    const t = await tasks(w.owner).createTask({ title: 'visible later', projectSlug: w.slug });
    await expectCode(tasks(w.outsider).getTask({ code: t.code }), Code.NotFound);

    const out = await projects(w.owner).setProjectMember({ slug: w.slug, email: w.outsider.email, role: 'member' });
    expect(out).toMatchObject({ userId: w.outsider.userId, role: 'member', changed: true });
    expect((await projects(w.owner).setProjectMember({ slug: w.slug, email: w.outsider.email, role: 'member' })).changed).toBe(false);
    expect(await roleIn(w.outsider, w.slug)).toBe('member');
    expect((await tasks(w.outsider).getTask({ code: t.code })).task?.taskId).toBe(t.taskId);

    const audit = await memberAudit(w.slug);
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({ action: 'project.member.set', source: 'connect', actor_user_id: w.owner.userId, token_id: w.owner.tokenId });
    expect(audit[0].summary).toMatchObject({ userId: w.outsider.userId, role: 'member', previousRole: null });
  });

  it('a lead manages members but cannot name a new owner; the owner can, and the previous owner becomes a lead', async () => {
    const w = await world();
    expect((await projects(w.lead).setProjectMember({ slug: w.slug, email: w.member.email, role: 'tech_lead' })).role).toBe('tech_lead');
    await expectCode(projects(w.lead).setProjectMember({ slug: w.slug, email: w.lead.email, role: 'owner' }), Code.PermissionDenied, 'permission_denied');
    expect(await roleIn(w.lead, w.slug)).toBe('lead');

    expect((await projects(w.owner).setProjectMember({ slug: w.slug, email: w.member.email, role: 'owner' })).changed).toBe(true);
    expect(await roleIn(w.member, w.slug)).toBe('owner');
    expect(await roleIn(w.owner, w.slug)).toBe('lead');
  });

  it('admins and super admins manage any project, member or not', async () => {
    const w = await world();
    expect((await projects(w.admin).setProjectMember({ slug: w.slug, email: w.outsider.email, role: 'lead' })).changed).toBe(true);
    expect((await projects(w.superAdmin).removeProjectMember({ slug: w.slug, email: w.outsider.email })).changed).toBe(true);
    expect(await roleIn(w.outsider, w.slug)).toBeNull();
    expect((await projects(w.admin).setProjectMember({ slug: w.slug, email: w.outsider.email, role: 'owner' })).role).toBe('owner');
  });

  it('tech leads, members and coordinators are refused; a non-member cannot tell the project exists (not_found); nothing changes', async () => {
    const w = await world();
    for (const a of [w.techLead, w.member, w.coordinator]) {
      await expectCode(projects(a).setProjectMember({ slug: w.slug, email: w.outsider.email, role: 'member' }), Code.PermissionDenied, 'permission_denied');
      await expectCode(projects(a).removeProjectMember({ slug: w.slug, email: w.member.email }), Code.PermissionDenied, 'permission_denied');
    }
    const hidden = await expectCode(
      projects(w.outsider).setProjectMember({ slug: w.slug, email: w.outsider.email, role: 'member' }),
      Code.NotFound,
      'not_found',
    );
    const absent = await expectCode(
      projects(w.outsider).setProjectMember({ slug: 'no-such-project', email: w.outsider.email, role: 'member' }),
      Code.NotFound,
      'not_found',
    );
    expect(hidden.rawMessage).toBe(absent.rawMessage);
    await expectCode(projects(w.outsider).removeProjectMember({ slug: w.slug, email: w.member.email }), Code.NotFound);
    expect(await roleIn(w.outsider, w.slug)).toBeNull();
    expect(await roleIn(w.member, w.slug)).toBe('member');
    expect(await memberAudit(w.slug)).toEqual([]);
  });

  it('the owner can be neither removed nor given another role; removing a non-member changes nothing', async () => {
    const w = await world();
    await expectCode(projects(w.lead).removeProjectMember({ slug: w.slug, email: w.owner.email }), Code.Aborted, 'owner_removal');
    await expectCode(projects(w.admin).setProjectMember({ slug: w.slug, email: w.owner.email, role: 'member' }), Code.Aborted, 'owner_role_change');
    expect(await roleIn(w.owner, w.slug)).toBe('owner');
    expect((await projects(w.owner).removeProjectMember({ slug: w.slug, email: w.outsider.email })).changed).toBe(false);
  });

  it('a removed member loses the project and its tasks at once', async () => {
    const w = await world();
    const t = await tasks(w.owner).createTask({ title: 'secret', projectSlug: w.slug });
    expect((await tasks(w.member).getTask({ taskId: t.taskId })).task?.code).toBe(t.code);
    const out = await projects(w.lead).removeProjectMember({ slug: w.slug, email: w.member.email });
    expect(out).toMatchObject({ userId: w.member.userId, changed: true });
    await expectCode(tasks(w.member).getTask({ taskId: t.taskId }), Code.NotFound);
    expect((await tasks(w.member).listTasks({ project: w.slug })).items).toEqual([]);
    expect((await memberAudit(w.slug)).map((r) => [r.action, r.source, r.actor_user_id])).toEqual([['project.member.removed', 'connect', w.lead.userId]]);
  });

  it('concurrent changes of one project are serialised: one insert, no internal error', async () => {
    const w = await world();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => projects(w.owner).setProjectMember({ slug: w.slug, email: w.outsider.email, role: 'member' })),
    );
    expect(results.filter((r) => r.changed)).toHaveLength(1);
    expect(await roleIn(w.outsider, w.slug)).toBe('member');
  });

  it('invalid input lists every issue; an unknown email is failed_precondition user-not-found', async () => {
    const w = await world();
    const err = await expectCode(projects(w.owner).setProjectMember({ slug: 'Bad Slug', email: 'nope', role: 'boss' }), Code.InvalidArgument, 'schema_invalid');
    expect(violations(err)).toEqual(['email', 'role', 'slug']);
    const unknown = await expectCode(
      projects(w.owner).setProjectMember({ slug: w.slug, email: uniqueEmail('ghost'), role: 'member' }),
      Code.FailedPrecondition,
      'user_not_found',
    );
    expect(info(unknown)?.type).toBe('user-not-found');
  });

  it('needs write:projects (write:tasks is not enough); a write:projects-only token works', async () => {
    const w = await world();
    const narrow = await withToken(w.owner, ['write:tasks', 'read:*']);
    const err = await expectCode(
      projects(narrow).setProjectMember({ slug: w.slug, email: w.outsider.email, role: 'member' }),
      Code.PermissionDenied,
      'missing_scope',
    );
    expect(info(err)?.metadata.required_scope).toBe('write:projects');
    await expectCode(projects(narrow).removeProjectMember({ slug: w.slug, email: w.member.email }), Code.PermissionDenied, 'missing_scope');
    const exact = await withToken(w.owner, ['write:projects']);
    expect((await projects(exact).setProjectMember({ slug: w.slug, email: w.outsider.email, role: 'member' })).changed).toBe(true);
  });
});

describe('TaskService (task tools)', () => {
  it('create, get, list, claim, status, comment: the same results as the tools, with isolation', async () => {
    const w = await world();
    const {
      out: c,
      from,
      to,
    } = await duringCall(h, () =>
      tasks(w.owner).createTask({
        title: 'Fix the login',
        projectSlug: w.slug,
        kind: 'issue',
        priority: 'high',
        reviewerUserIds: [w.lead.userId],
        dueDate: '2026-12-01',
      }),
    );
    expect(c).toMatchObject({ code: `${w.code}-1`, priority: 'high', draft: false, status: 'todo', reviewers: [{ id: w.lead.userId, email: w.lead.email }] });
    expect(c.assignee).toBeUndefined();
    expect(c.url).toBe(`${h.svc.deps.config.publicBaseUrl}/tasks/${w.code}-1`);

    const listed = await tasks(w.member).listTasks({ project: w.slug });
    expect(listed.items.map((t) => t.code)).toEqual([c.code]);
    expect(listed.items[0]).toMatchObject({ kind: 'issue', status: 'todo', projectSlug: w.slug, dueDate: '2026-12-01' });
    expect(timestampMs(listed.items[0]!.createdAt)).toBeGreaterThanOrEqual(from);
    expect(timestampMs(listed.items[0]!.createdAt)).toBeLessThanOrEqual(to);
    expect((await tasks(w.outsider).listTasks({})).items).toEqual([]);
    await expectCode(tasks(w.outsider).getTask({ code: c.code }), Code.NotFound, 'not_found');

    const claimed = await tasks(w.member).claimTask({ code: c.code });
    expect(claimed).toMatchObject({ taskId: c.taskId, code: c.code, status: 'todo', assignee: { id: w.member.userId, email: w.member.email } });
    await expectCode(tasks(w.lead).claimTask({ code: c.code }), Code.Aborted, 'already_assigned');

    const moved = await tasks(w.member).updateTaskStatus({ code: c.code, status: 'in_progress', progressNote: 'on it' });
    expect(moved).toMatchObject({ status: 'in_progress', newStatus: 'in_progress' });
    expect(moved.commentId).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await expectCode(tasks(w.member).updateTaskStatus({ code: c.code, status: 'done' }), Code.Aborted, 'transition_not_allowed');
    expect(info(refused)?.metadata.allowed).toBeDefined();
    await expectCode(tasks(w.techLead).updateTaskStatus({ code: c.code, status: 'review' }), Code.PermissionDenied, 'permission_denied');

    const { commentId } = await tasks(w.lead).addTaskComment({ taskId: c.code!, body: 'looks good' });
    const detail = (await tasks(w.member).getTask({ taskId: c.taskId })).task!;
    expect(detail).toMatchObject({
      code: c.code,
      title: 'Fix the login',
      status: 'in_progress',
      draft: false,
      project: { slug: w.slug },
      assignee: { id: w.member.userId },
    });
    expect(detail.assignees).toEqual([expect.objectContaining({ id: w.member.userId, name: 'A member' })]);
    expect(detail.statusHistory.map((s) => [s.from ?? null, s.to, s.commentId ?? null])).toEqual([
      [null, 'todo', null],
      ['todo', 'in_progress', moved.commentId],
    ]);
    expect(detail.comments.map((x) => [x.id, x.body])).toEqual([
      [moved.commentId, 'on it'],
      [commentId, 'looks good'],
    ]);
    expect(detail.commentCount).toBe(2);
    expect(detail.publishedAt).toBeDefined();

    const audit = await sql(`select action, source, actor_user_id from audit_log where target_id = ? order by created_at, action`, [c.taskId]);
    expect(audit.every((r) => r.source === 'connect')).toBe(true);
    expect(audit.length).toBeGreaterThanOrEqual(4);
  });

  it('create_task rules: project_slug required unless draft; assigning others needs owner/tech lead/super admin (field named)', async () => {
    const w = await world();
    const missing = await expectCode(tasks(w.member).createTask({ title: 'x' }), Code.InvalidArgument, 'project_slug_required');
    expect(info(missing)?.metadata.field).toBe('project_slug');
    const denied = await expectCode(
      tasks(w.member).createTask({ title: 'x', projectSlug: w.slug, assigneeUserId: w.lead.userId }),
      Code.PermissionDenied,
      'permission_denied',
    );
    expect(info(denied)?.metadata.field).toBe('assignee_user_id');
    await expectCode(tasks(w.outsider).createTask({ title: 'x', projectSlug: w.slug }), Code.NotFound, 'project_not_found');
    expect((await tasks(w.techLead).createTask({ title: 'x', projectSlug: w.slug, assigneeEmail: w.member.email })).assignee?.id).toBe(w.member.userId);
    const bad = await expectCode(
      tasks(w.member).createTask({ title: '', projectSlug: w.slug, priority: 'meh', dueDate: 'soon' }),
      Code.InvalidArgument,
      'schema_invalid',
    );
    expect(violations(bad)).toEqual(['due_date', 'priority', 'title']);
  });

  it('CreateTask honours idempotency-key: a replay returns the same task, a different body with the key is aborted', async () => {
    const w = await world();
    const headers = { 'idempotency-key': `k-${randomBytes(4).toString('hex')}` };
    const first = await tasks(w.owner).createTask({ title: 'once', projectSlug: w.slug }, { headers });
    const again = await tasks(w.owner).createTask({ title: 'once', projectSlug: w.slug }, { headers });
    expect(again.taskId).toBe(first.taskId);
    await expectCode(tasks(w.owner).createTask({ title: 'twice', projectSlug: w.slug }, { headers }), Code.Aborted, 'idempotency_key_reused');
    expect((await tasks(w.owner).listTasks({ project: w.slug })).items).toHaveLength(1);
  });

  it('drafts: private to the creator, published with a code', async () => {
    const w = await world();
    const d = await tasks(w.member).createTask({ title: 'draft', asDraft: true });
    expect(d).toMatchObject({ draft: true, status: 'todo' });
    expect(d.code).toBeUndefined();
    await expectCode(tasks(w.owner).getTask({ taskId: d.taskId }), Code.NotFound);
    await expectCode(tasks(w.member).publishTaskDraft({ taskId: d.taskId }), Code.InvalidArgument, 'project_slug_required');
    const p = await tasks(w.member).publishTaskDraft({ taskId: d.taskId, projectSlug: w.slug });
    expect(p).toMatchObject({ taskId: d.taskId, code: `${w.code}-1`, draft: false });
    await expectCode(tasks(w.member).publishTaskDraft({ taskId: d.taskId }), Code.Aborted, 'already_published');
    expect((await tasks(w.owner).getTask({ code: p.code })).task?.draft).toBe(false);
  });

  it('scopes as the tools: read:tasks reads, write:tasks writes', async () => {
    const w = await world();
    const reader = await withToken(w.owner, ['read:tasks']);
    expect((await tasks(reader).listTasks({})).items).toEqual([]);
    const err = await expectCode(tasks(reader).createTask({ title: 'x', projectSlug: w.slug }), Code.PermissionDenied, 'missing_scope');
    expect(info(err)?.metadata.required_scope).toBe('write:tasks');
    await expectCode(tasks(reader).submitDailyUpdate({ availabilityStatus: 'available', mainTaskIds: [] }), Code.PermissionDenied, 'missing_scope');
    const writer = await withToken(w.owner, ['write:tasks']);
    const e2 = await expectCode(tasks(writer).listTasks({}), Code.PermissionDenied, 'missing_scope');
    expect(info(e2)?.metadata.required_scope).toBe('read:tasks');
    await expectCode(tasks(writer).getOwnerIntakeTemplates({}), Code.PermissionDenied, 'missing_scope');
  });

  it('GetOwnerIntakeTemplates and SubmitDailyUpdate; invalid input is reported under the proto field names', async () => {
    const w = await world();
    const tpl = await tasks(w.member).getOwnerIntakeTemplates({ ownerEmail: w.owner.email });
    expect(tpl).toMatchObject({ owner: { id: w.owner.userId, email: w.owner.email }, descriptionSource: 'system', checklistSource: 'system' });
    expect(tpl.description?.label).toBe('Request');
    expect(tpl.checklists[0]?.items.length).toBeGreaterThan(0);
    await expectCode(tasks(w.member).getOwnerIntakeTemplates({ ownerEmail: uniqueEmail('nobody') }), Code.NotFound);

    const t = await tasks(w.owner).createTask({ title: 'main', projectSlug: w.slug });
    const day = h.clock.now().toISOString().slice(0, 10);
    expect(await tasks(w.member).submitDailyUpdate({ availabilityStatus: 'limited', mainTaskIds: [t.code!], note: 'afternoon only' })).toMatchObject({
      date: day,
      updated: false,
    });
    expect(await tasks(w.member).submitDailyUpdate({ availabilityStatus: 'available', mainTaskIds: [] })).toMatchObject({ date: day, updated: true });
    const hidden = await expectCode(tasks(w.outsider).submitDailyUpdate({ availabilityStatus: 'available', mainTaskIds: [t.code!] }), Code.NotFound);
    expect(info(hidden)?.metadata.field).toBe('main_task_ids');

    const bad = await expectCode(tasks(w.member).submitDailyUpdate({ availabilityStatus: 'asleep', mainTaskIds: ['not a task'] }), Code.InvalidArgument);
    expect(violations(bad)).toEqual(['availability_status', 'main_task_ids.0']);
    const badComment = await expectCode(tasks(w.member).addTaskComment({ taskId: 'nope', body: '' }), Code.InvalidArgument);
    expect(violations(badComment)).toEqual(['body', 'task_id']);
    const both = await expectCode(tasks(w.member).getTask({ code: t.code, taskId: t.taskId }), Code.InvalidArgument);
    expect(violations(both)).toEqual(['task_id']);
  });
});

describe.each(['grpc', 'grpc-web'] as Protocol[])('work services over %s', (protocol) => {
  it('membership, tasks and isolation behave the same', async () => {
    const w = await world();
    expect((await projects(w.owner, protocol).setProjectMember({ slug: w.slug, email: w.outsider.email, role: 'member' })).changed).toBe(true);
    expect((await projects(w.outsider, protocol).listProjects({})).items.map((p) => p.slug).sort()).toEqual([w.slug, w.otherSlug].sort());
    const t = await tasks(w.owner, protocol).createTask({ title: `over ${protocol}`, projectSlug: w.slug });
    expect((await tasks(w.outsider, protocol).getTask({ code: t.code })).task?.title).toBe(`over ${protocol}`);
    const err = await fails(projects(w.member, protocol).setProjectMember({ slug: w.otherSlug, email: w.member.email, role: 'member' }));
    expect(err.code).toBe(Code.NotFound);
    expect(info(err)?.code).toBe('not_found');
    const denied = await fails(projects(w.member, protocol).removeProjectMember({ slug: w.slug, email: w.outsider.email }));
    expect(denied.code).toBe(Code.PermissionDenied);
  });
});

it('grpc.health.v1 reports the work services', async () => {
  const health = createClient(Health, transportFor(h, 'grpc'));
  for (const s of ['fluxdesk.work.v1.ProjectService', 'fluxdesk.work.v1.TaskService', 'fluxdesk.work.v1.DocService']) {
    expect((await health.check({ service: s })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  }
});
