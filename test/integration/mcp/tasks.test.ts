// Task, project and draft tools through POST /mcp (SPEC C list_projects, create_task, get_task,
// list_tasks, and this service's publish_task_draft; "Agent token scopes" read:tasks, read:meta,
// write:tasks; Errors: structured form for create_task, flat for the rest; What the service does
// 8: project isolation on the server; Versioning 4: task_code alias).
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operator, startHarness, type Harness } from '../../helpers/harness.js';
import { runOperation } from '../../../src/app/run-operation.js';
import type { Operation } from '../../../src/domain/context.js';
import { removeProjectMember } from '../../../src/domain/projects/remove-project-member.js';
import { setProjectMember } from '../../../src/domain/projects/set-project-member.js';
import { projectSlugRequired } from '../../../src/domain/tasks/task-placement.js';
import { toolErrorEnvelope } from '../../../src/transports/mcp/errors.js';
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

/** An operator operation run the way the CLI runs it (these are not in the CLI registry yet). */
const system = async (op: Operation<any, any, any>, input: Record<string, unknown>) =>
  (await runOperation(h.svc.deps, op, { surface: 'cli', requestId: 'req_test', input, log: h.svc.deps.log, system: true })).output;

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

const { agent, raw, ok, fails, invalid } = toolCalls(() => h);

/** A project with one user per project role, plus outsiders and org-wide roles. */
async function world() {
  const [owner, lead, techLead, member, member2, outsider, admin, superAdmin, coordinator] = [
    await agent(),
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
    members: [member.email, member2.email],
    leads: [lead.email],
    tech_leads: [techLead.email],
  });
  const otherSlug = `q${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', { slug: otherSlug, name: `Other ${otherSlug}`, owner: outsider.email, members: [], leads: [], tech_leads: [] });
  return { slug, code: slug.toUpperCase(), otherSlug, owner, lead, techLead, member, member2, outsider, admin, superAdmin, coordinator };
}

const NOT_FOUND_TASK = { error: 'NOT_FOUND: task not found' };

describe('tools/list and scopes', () => {
  it('lists each task tool with its scope; a token sees only what its scopes allow', async () => {
    const a = await agent('member', ['read:tasks']);
    const r = await mcp(h, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token: a.token });
    const byName = new Map<string, any>(r.body.result.tools.map((t: any) => [t.name, t]));
    expect(byName.get('list_tasks').requiredScopes).toEqual(['read:tasks']);
    expect(byName.get('get_task').requiredScopes).toEqual(['read:tasks']);
    expect(byName.get('get_owner_intake_templates').requiredScopes).toEqual(['read:tasks']);
    for (const hidden of ['create_task', 'claim_task', 'update_task_status', 'add_task_comment', 'submit_daily_update', 'list_projects', 'publish_task_draft'])
      expect(byName.has(hidden), hidden).toBe(false);

    const all = await agent();
    const r2 = await mcp(h, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token: all.token });
    const scopes = Object.fromEntries(r2.body.result.tools.map((t: any) => [t.name, t.requiredScopes]));
    expect(scopes).toMatchObject({
      list_projects: ['read:meta'],
      create_task: ['write:tasks'],
      claim_task: ['write:tasks'],
      update_task_status: ['write:tasks'],
      add_task_comment: ['write:tasks'],
      submit_daily_update: ['write:tasks'],
      publish_task_draft: ['write:tasks'],
    });
    const create = r2.body.result.tools.find((t: any) => t.name === 'create_task');
    expect(create.outputSchema.type).toBe('object');
    expect(create.inputSchema.required).toEqual(['title']);
  });

  it('a token lacking the scope gets 403 FORBIDDEN naming it', async () => {
    const w = await world();
    const readOnly = await newAgent(h, ['read:tasks', 'read:meta'], w.owner);
    for (const [name, args] of [
      ['create_task', { title: 't', project_slug: w.slug }],
      ['claim_task', { code: `${w.code}-1` }],
      ['update_task_status', { code: `${w.code}-1`, status: 'done' }],
      ['add_task_comment', { taskId: randomUUID(), body: 'x' }],
      ['publish_task_draft', { task_id: randomUUID() }],
    ] as const) {
      const r = await raw(readOnly, name, args);
      expect(r.status, name).toBe(403);
      expect(r.body.error).toMatchObject({ code: -32003, data: { type: 'FORBIDDEN', missing_scope: 'write:tasks' } });
      expect(r.body.error.message).toContain('write:tasks');
    }
    const writeOnly = await newAgent(h, ['write:tasks'], w.owner);
    for (const name of ['list_tasks', 'get_task', 'get_owner_intake_templates']) {
      const r = await raw(writeOnly, name, name === 'get_task' ? { code: `${w.code}-1` } : {});
      expect(r.status, name).toBe(403);
      expect(r.body.error.data.missing_scope).toBe('read:tasks');
    }
    const r = await raw(writeOnly, 'list_projects');
    expect(r.status).toBe(403);
    expect(r.body.error.data.missing_scope).toBe('read:meta');
    // read:* is not write:tasks (SPEC matching rules).
    const readAll = await newAgent(h, ['read:*'], w.owner);
    expect((await raw(readAll, 'create_task', { title: 't', project_slug: w.slug })).status).toBe(403);
    expect((await ok(readAll, 'list_tasks')).items).toEqual([]);
  });
});

describe('list_projects', () => {
  it("only the caller's projects, with their role and an absolute url", async () => {
    const w = await world();
    const mine = (await ok(w.owner, 'list_projects')).items;
    expect(mine).toEqual([{ id: expect.any(String), slug: w.slug, name: `Project ${w.slug}`, role: 'owner', url: `${base}/projects/${w.slug}` }]);
    expect((await ok(w.techLead, 'list_projects')).items.map((p: any) => [p.slug, p.role])).toEqual([[w.slug, 'tech_lead']]);
    expect((await ok(w.lead, 'list_projects')).items.map((p: any) => p.role)).toEqual(['lead']);
    expect((await ok(w.member, 'list_projects')).items.map((p: any) => p.role)).toEqual(['member']);
    expect((await ok(w.outsider, 'list_projects')).items.map((p: any) => p.slug)).toEqual([w.otherSlug]);
    const loner = await agent();
    expect(await ok(loner, 'list_projects')).toEqual({ items: [] });
  });

  it('admins, super admins and coordinators see every project (role null where not a member)', async () => {
    const w = await world();
    for (const a of [w.admin, w.superAdmin, w.coordinator]) {
      const items = (await ok(a, 'list_projects')).items;
      expect(items.find((p: any) => p.slug === w.slug)).toMatchObject({ role: null });
      expect(items.find((p: any) => p.slug === w.otherSlug)).toBeDefined();
    }
    const hr = await agent('hr_admin');
    expect((await ok(hr, 'list_projects')).items.some((p: any) => p.slug === w.slug)).toBe(false);
  });

  it('archived projects are left out', async () => {
    const w = await world();
    await sql('update projects set archived_at = now() where slug = ?', [w.slug]);
    expect(await ok(w.owner, 'list_projects')).toEqual({ items: [] });
    expect((await fails(w.owner, 'create_task', { title: 't', project_slug: w.slug })).error).toMatchObject({ type: 'not_found', field: 'project_slug' });
  });
});

describe('create_task', () => {
  it("creates a task with a per-project code, absolute url and the spec's output shape", async () => {
    const w = await world();
    const out = await ok(w.owner, 'create_task', { title: 'First', project_slug: w.slug, assignee_user_id: w.member.userId, description: 'secret-ish text' });
    expect(out).toEqual({
      task_id: expect.any(String),
      code: `${w.code}-1`,
      url: `${base}/tasks/${w.code}-1`,
      assignee: { id: w.member.userId, email: w.member.email },
      priority: 'medium',
      cc: [],
      reviewers: [],
      draft: false,
      status: 'todo',
    });
    const second = await ok(w.member, 'create_task', { title: 'Second', project_slug: w.slug, priority: 'urgent', kind: 'bug', due_date: '2026-12-31' });
    expect(second).toMatchObject({ code: `${w.code}-2`, priority: 'urgent', assignee: null });
    const other = await ok(w.outsider, 'create_task', { title: 'Elsewhere', project_slug: w.otherSlug });
    expect(other.code).toBe(`${w.otherSlug.toUpperCase()}-1`);

    const t = await ok(w.member, 'get_task', { code: `${w.code}-2` });
    expect(t).toMatchObject({
      kind: 'bug',
      priority: 'urgent',
      due_date: '2026-12-31',
      status: 'todo',
      creator: { id: w.member.userId, email: w.member.email },
    });

    // The assignee is told; the audit row names the tool and carries no text.
    const inbox = await sql('select type, title, target_url, actor_user_id from notifications where user_id = ?', [w.member.userId]);
    expect(inbox).toEqual([
      { type: 'task', title: `Assigned to you: ${w.code}-1 First`, target_url: `${base}/tasks/${w.code}-1`, actor_user_id: w.owner.userId },
    ]);
    const audit = await sql('select action, source, actor_user_id, token_id, summary from audit_log where target_id = ?', [out.task_id]);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'task.created',
      source: 'mcp',
      actor_user_id: w.owner.userId,
      token_id: w.owner.tokenId,
      summary: { tool: 'create_task', code: `${w.code}-1`, hasDescription: true },
    });
    expect(JSON.stringify(audit[0].summary)).not.toContain('secret-ish');
    expect(JSON.stringify(audit[0].summary)).not.toContain('First');
  });

  it('numbers concurrent creates without duplicates or gaps', async () => {
    const w = await world();
    const outs = await Promise.all(Array.from({ length: 8 }, (_, i) => ok(w.member, 'create_task', { title: `c${i}`, project_slug: w.slug })));
    expect(outs.map((o) => Number(o.code.split('-').pop())).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('missing project_slug is the flat error "project_slug is required"', async () => {
    const w = await world();
    // The literal flat envelope needs the MCP mapper to honour `flat_error` (see the report); until
    // then the same failure arrives structured, naming the field.
    const flatSupported = typeof toolErrorEnvelope(projectSlugRequired(), 'structured', 'x').error === 'string';
    for (const args of [{ title: 't' }, { title: 't', project_slug: '' }, { title: 't', project_slug: null }, { title: 't', as_draft: false }]) {
      const out = await fails(w.member, 'create_task', args);
      if (flatSupported) expect(out).toEqual({ error: 'project_slug is required' });
      else
        expect(out).toEqual({
          error: { type: 'validation_failed', title: 'project_slug_required', detail: 'project_slug is required', field: 'project_slug' },
        });
    }
  });

  it('a project the caller cannot see, or that does not exist, is a structured not_found', async () => {
    const w = await world();
    for (const project_slug of [w.otherSlug, 'no-such-project']) {
      expect(await fails(w.member, 'create_task', { title: 't', project_slug })).toEqual({
        error: { type: 'not_found', title: 'project_not_found', detail: `project ${project_slug} not found`, field: 'project_slug' },
      });
    }
  });

  it('assigning someone else: super admin, project owner or tech lead; else structured forbidden permission_denied with field', async () => {
    const w = await world();
    for (const who of [w.owner, w.techLead, w.superAdmin]) {
      expect((await ok(who, 'create_task', { title: 't', project_slug: w.slug, assignee_user_id: w.member.userId })).assignee.id).toBe(w.member.userId);
    }
    for (const who of [w.lead, w.member2, w.admin, w.coordinator]) {
      expect(await fails(who, 'create_task', { title: 't', project_slug: w.slug, assignee_user_id: w.member.userId })).toEqual({
        error: { type: 'forbidden', title: 'permission_denied', detail: expect.stringContaining('super admin'), field: 'assignee_user_id' },
      });
    }
    expect((await fails(w.member2, 'create_task', { title: 't', project_slug: w.slug, assignee_email: w.member.email })).error).toMatchObject({
      type: 'forbidden',
      title: 'permission_denied',
      field: 'assignee_email',
    });
    // Assigning yourself is always fine.
    expect((await ok(w.member2, 'create_task', { title: 't', project_slug: w.slug, assignee_email: w.member2.email.toUpperCase() })).assignee.id).toBe(
      w.member2.userId,
    );
    // Nothing was created by the refused calls.
    const [{ n }] = await sql('select count(*)::int as n from tasks t join projects p on p.id = t.project_id where p.slug = ?', [w.slug]);
    expect(n).toBe(4);
  });

  it('an unresolvable assignee is a structured not_found; assignee_user_id wins over assignee_email', async () => {
    const w = await world();
    expect(await fails(w.owner, 'create_task', { title: 't', project_slug: w.slug, assignee_user_id: randomUUID() })).toEqual({
      error: { type: 'not_found', title: 'assignee_not_found', detail: 'assignee not found (assignee_user_id)', field: 'assignee_user_id' },
    });
    expect((await fails(w.owner, 'create_task', { title: 't', project_slug: w.slug, assignee_email: 'nobody@example.test' })).error).toMatchObject({
      type: 'not_found',
      field: 'assignee_email',
    });
    await sql(`update users set status = 'offboarded' where id = ?`, [w.member2.userId]);
    expect((await fails(w.owner, 'create_task', { title: 't', project_slug: w.slug, assignee_user_id: w.member2.userId })).error).toMatchObject({
      type: 'not_found',
      field: 'assignee_user_id',
    });
    const out = await ok(w.owner, 'create_task', {
      title: 't',
      project_slug: w.slug,
      assignee_user_id: w.member.userId,
      assignee_email: 'nobody@example.test',
    });
    expect(out.assignee).toEqual({ id: w.member.userId, email: w.member.email });
    // Someone outside the project cannot be assigned even by the owner.
    expect((await fails(w.owner, 'create_task', { title: 't', project_slug: w.slug, assignee_user_id: w.outsider.userId })).error).toMatchObject({
      type: 'validation_failed',
      title: 'assignee_not_in_project',
      field: 'assignee_user_id',
    });
  });

  it('reviewers and cc: unknown, inactive, self and non-member ids are dropped silently; at most 50 reviewers', async () => {
    const w = await world();
    const inactive = await agent();
    await system(setProjectMember, { slug: w.slug, email: inactive.email, role: 'member' });
    await sql(`update users set status = 'offboarded' where id = ?`, [inactive.userId]);
    const out = await ok(w.member, 'create_task', {
      title: 'reviewed',
      project_slug: w.slug,
      reviewer_user_ids: [w.lead.userId, randomUUID(), 'not-a-uuid', inactive.userId, w.member.userId, w.outsider.userId, w.lead.userId, w.admin.userId],
      cc_user_ids: [w.owner.userId, randomUUID(), w.member.userId],
      cc_emails: [w.techLead.email.toUpperCase(), 'ghost@example.test', inactive.email, w.owner.email],
    });
    expect(out.reviewers).toEqual([
      { id: w.lead.userId, email: w.lead.email },
      { id: w.admin.userId, email: w.admin.email },
    ]);
    expect(out.cc).toEqual([
      { id: w.owner.userId, email: w.owner.email },
      { id: w.techLead.userId, email: w.techLead.email },
    ]);
    const t = await ok(w.member, 'get_task', { task_id: out.task_id });
    expect(t.reviewers).toEqual(out.reviewers);
    expect(t.cc).toEqual(out.cc);

    const many = Array.from({ length: 51 }, () => randomUUID());
    expect(await fails(w.member, 'create_task', { title: 't', project_slug: w.slug, reviewer_user_ids: many })).toEqual({
      error: { type: 'validation_failed', title: 'too_many_reviewers', detail: 'reviewer_user_ids takes at most 50 ids', field: 'reviewer_user_ids' },
    });
    expect((await ok(w.member, 'create_task', { title: 't', project_slug: w.slug, reviewer_user_ids: many.slice(0, 50) })).reviewers).toEqual([]);
  });

  it('schema errors are JSON-RPC -32602 with data.field', async () => {
    const w = await world();
    await invalid(w.member, 'create_task', { project_slug: w.slug }, 'title');
    await invalid(w.member, 'create_task', { title: 't', project_slug: w.slug, priority: 'asap' }, 'priority');
    await invalid(w.member, 'create_task', { title: 't', project_slug: w.slug, kind: 'epic' }, 'kind');
    await invalid(w.member, 'create_task', { title: 't', project_slug: w.slug, due_date: '31.12.2026' }, 'due_date');
    await invalid(w.member, 'create_task', { title: 'x'.repeat(201), project_slug: w.slug }, 'title');
    await invalid(w.member, 'create_task', { title: 't', project_slug: w.slug, surprise: 1 }, 'surprise');
  });
});

describe('parent tasks', () => {
  it('nest within a project; unknown or invisible parents are not_found; other projects refused', async () => {
    const w = await world();
    const root = await ok(w.member, 'create_task', { title: 'root', project_slug: w.slug });
    const child = await ok(w.member, 'create_task', { title: 'child', project_slug: w.slug, parent_task_code: root.code.toLowerCase() });
    expect((await ok(w.member, 'get_task', { code: child.code })).parent_task_code).toBe(root.code);
    expect((await ok(w.member, 'list_tasks', { project: w.slug })).items.find((i: any) => i.code === child.code).parent_task_code).toBe(root.code);

    expect((await fails(w.member, 'create_task', { title: 't', project_slug: w.slug, parent_task_code: `${w.code}-999` })).error).toMatchObject({
      type: 'not_found',
      field: 'parent_task_code',
    });
    const foreign = await ok(w.outsider, 'create_task', { title: 'foreign', project_slug: w.otherSlug });
    expect((await fails(w.member, 'create_task', { title: 't', project_slug: w.slug, parent_task_code: foreign.code })).error).toMatchObject({
      type: 'not_found',
      field: 'parent_task_code',
    });
    // Visible to an admin, but still another project.
    const mine = await ok(w.admin, 'create_task', { title: 'admin', project_slug: w.slug });
    expect((await fails(w.admin, 'create_task', { title: 't', project_slug: w.otherSlug, parent_task_code: mine.code })).error).toMatchObject({
      type: 'validation_failed',
      title: 'parent_in_other_project',
      field: 'parent_task_code',
    });
  });

  it('depth above 10 is refused', async () => {
    const w = await world();
    let parent: string | undefined;
    for (let level = 1; level <= 10; level++) {
      const t = await ok(w.member, 'create_task', { title: `level ${level}`, project_slug: w.slug, ...(parent ? { parent_task_code: parent } : {}) });
      parent = t.code;
    }
    expect(await fails(w.member, 'create_task', { title: 'level 11', project_slug: w.slug, parent_task_code: parent })).toEqual({
      error: { type: 'validation_failed', title: 'parent_too_deep', detail: 'tasks nest at most 10 levels deep', field: 'parent_task_code' },
    });
  });

  it('a cycle in the parent chain is refused (and reading it terminates)', async () => {
    const w = await world();
    const a = await ok(w.member, 'create_task', { title: 'a', project_slug: w.slug });
    const b = await ok(w.member, 'create_task', { title: 'b', project_slug: w.slug, parent_task_code: a.code });
    const c = await ok(w.member, 'create_task', { title: 'c', project_slug: w.slug, parent_task_code: b.code });
    // No tool re-parents; a cycle can only come from stored data. Close the loop a -> c.
    await sql('update tasks set parent_task_id = ? where id = ?', [c.task_id, a.task_id]);
    expect(await fails(w.member, 'create_task', { title: 'd', project_slug: w.slug, parent_task_code: b.code })).toEqual({
      error: { type: 'validation_failed', title: 'parent_cycle', detail: 'the parent chain would contain a cycle', field: 'parent_task_code' },
    });
  });
});

describe('drafts', () => {
  it('need no project, get no code, keep assignee and reviewers unchecked, and are private to the creator', async () => {
    const w = await world();
    const d = await ok(w.member, 'create_task', {
      title: 'idea',
      as_draft: true,
      assignee_user_id: w.member2.userId,
      reviewer_user_ids: [w.lead.userId, w.outsider.userId],
      priority: 'high',
    });
    expect(d).toEqual({
      task_id: expect.any(String),
      code: null,
      url: `${base}/tasks/${d.task_id}`,
      assignee: { id: w.member2.userId, email: w.member2.email },
      priority: 'high',
      cc: [],
      reviewers: [
        { id: w.lead.userId, email: w.lead.email },
        { id: w.outsider.userId, email: w.outsider.email },
      ],
      draft: true,
      status: 'todo',
    });
    expect(await ok(w.member, 'get_task', { task_id: d.task_id })).toMatchObject({ draft: true, code: null, project: null, status_history: [] });
    for (const other of [w.member2, w.owner, w.admin]) expect(await fails(other, 'get_task', { task_id: d.task_id })).toEqual(NOT_FOUND_TASK);
    expect((await ok(w.member, 'list_tasks')).items.some((i: any) => i.task_id === d.task_id)).toBe(false);
    expect((await fails(w.member, 'update_task_status', { task_id: d.task_id, status: 'in_progress' })).error).toMatch(/^CONFLICT: a draft/);
    // No inbox row for a draft's assignee.
    expect(await sql('select 1 from notifications where user_id = ?', [w.member2.userId])).toEqual([]);
  });

  it('publish re-checks the project, the assignee permission and the reviewers', async () => {
    const w = await world();
    const d = await ok(w.member, 'create_task', {
      title: 'idea',
      as_draft: true,
      assignee_user_id: w.member2.userId,
      reviewer_user_ids: [w.lead.userId, w.outsider.userId],
    });
    const flatSupported = typeof toolErrorEnvelope(projectSlugRequired(), 'structured', 'x').error === 'string';
    const noProject = await fails(w.member, 'publish_task_draft', { task_id: d.task_id });
    expect(noProject).toEqual(
      flatSupported ? { error: 'project_slug is required' } : { error: expect.objectContaining({ title: 'project_slug_required', field: 'project_slug' }) },
    );
    expect((await fails(w.member, 'publish_task_draft', { task_id: d.task_id, project_slug: w.otherSlug })).error).toMatchObject({
      type: 'not_found',
      field: 'project_slug',
    });
    // A plain member may not assign someone else: refused at publish.
    expect(await fails(w.member, 'publish_task_draft', { task_id: d.task_id, project_slug: w.slug })).toEqual({
      error: { type: 'forbidden', title: 'permission_denied', detail: expect.any(String), field: 'assignee_user_id' },
    });
    expect((await fails(w.owner, 'publish_task_draft', { task_id: d.task_id, project_slug: w.slug })).error).toMatchObject({
      type: 'not_found',
      field: 'task_id',
    });

    // Promoted to tech lead, the creator may now publish it; the outsider reviewer is dropped.
    await sql(`update project_members set role = 'tech_lead' where user_id = ?`, [w.member.userId]);
    const p = await ok(w.member, 'publish_task_draft', { task_id: d.task_id, project_slug: w.slug });
    expect(p).toEqual({
      task_id: d.task_id,
      code: `${w.code}-1`,
      url: `${base}/tasks/${w.code}-1`,
      assignee: { id: w.member2.userId, email: w.member2.email },
      priority: 'medium',
      cc: [],
      reviewers: [{ id: w.lead.userId, email: w.lead.email }],
      draft: false,
      status: 'todo',
    });
    const t = await ok(w.member2, 'get_task', { code: p.code });
    expect(t).toMatchObject({
      draft: false,
      reviewers: [{ id: w.lead.userId }],
      status_history: [{ from: null, to: 'todo', changed_by: { id: w.member.userId } }],
      project: { slug: w.slug, url: `${base}/projects/${w.slug}` },
    });
    expect((await fails(w.member, 'publish_task_draft', { task_id: d.task_id })).error).toMatchObject({ type: 'conflict', title: 'already_published' });
  });

  it('a draft saved in a project publishes there; an assignee who left is not_found at publish', async () => {
    const w = await world();
    const d = await ok(w.owner, 'create_task', { title: 'x', as_draft: true, project_slug: w.slug, assignee_user_id: w.member.userId });
    expect(d.code).toBeNull();
    await sql(`update users set status = 'offboarded' where id = ?`, [w.member.userId]);
    expect((await fails(w.owner, 'publish_task_draft', { task_id: d.task_id })).error).toMatchObject({ type: 'not_found', field: 'assignee_user_id' });
    await sql(`update users set status = 'active' where id = ?`, [w.member.userId]);
    expect((await ok(w.owner, 'publish_task_draft', { task_id: d.task_id })).code).toBe(`${w.code}-1`);
  });
});

describe('get_task', () => {
  it('by code (any case), task_id, or the deprecated task_code; with assignees and status history', async () => {
    const w = await world();
    const c = await ok(w.owner, 'create_task', { title: 'Read me', project_slug: w.slug, assignee_user_id: w.member.userId, description: 'Details' });
    const byCode = await ok(w.member, 'get_task', { code: c.code });
    expect(byCode).toEqual({
      task_id: c.task_id,
      code: c.code,
      title: 'Read me',
      description: 'Details',
      kind: 'task',
      priority: 'medium',
      status: 'todo',
      draft: false,
      project: { slug: w.slug, name: `Project ${w.slug}`, url: `${base}/projects/${w.slug}` },
      parent_task_code: null,
      due_date: null,
      creator: { id: w.owner.userId, email: w.owner.email },
      assignee: { id: w.member.userId, email: w.member.email },
      assignees: [{ id: w.member.userId, email: w.member.email, name: 'A member' }],
      reviewers: [],
      cc: [],
      status_history: [{ from: null, to: 'todo', changed_by: { id: w.owner.userId, email: w.owner.email }, comment_id: null, at: expect.any(String) }],
      comments: [],
      comment_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      published_at: expect.any(String),
      url: `${base}/tasks/${c.code}`,
    });
    expect(await ok(w.member, 'get_task', { code: c.code.toLowerCase() })).toEqual(byCode);
    expect(await ok(w.member, 'get_task', { task_id: c.task_id })).toEqual(byCode);
    expect(await ok(w.member, 'get_task', { task_code: c.code })).toEqual(byCode);
    expect(await ok(w.member, 'get_task', { code: c.code, task_code: c.code.toLowerCase() })).toEqual(byCode);
  });

  it('address errors are -32602: none, both, a disagreeing alias, a malformed code', async () => {
    const w = await world();
    await invalid(w.member, 'get_task', {}, 'code');
    await invalid(w.member, 'get_task', { code: `${w.code}-1`, task_id: randomUUID() }, 'task_id');
    await invalid(w.member, 'get_task', { code: `${w.code}-1`, task_code: `${w.code}-2` }, 'task_code');
    await invalid(w.member, 'get_task', { code: 'not a code' }, 'code');
    await invalid(w.member, 'get_task', { task_id: 'nope' }, 'task_id');
  });

  it("outside the caller's projects it is NOT_FOUND, exactly like an absent task", async () => {
    const w = await world();
    const c = await ok(w.owner, 'create_task', { title: 'hidden', project_slug: w.slug });
    expect(await fails(w.outsider, 'get_task', { code: c.code })).toEqual(NOT_FOUND_TASK);
    expect(await fails(w.outsider, 'get_task', { task_id: c.task_id })).toEqual(NOT_FOUND_TASK);
    expect(await fails(w.outsider, 'get_task', { code: `${w.code}-999` })).toEqual(NOT_FOUND_TASK);
    expect(await fails(w.outsider, 'get_task', { task_id: randomUUID() })).toEqual(NOT_FOUND_TASK);
    const hr = await agent('hr_admin');
    expect(await fails(hr, 'get_task', { code: c.code })).toEqual(NOT_FOUND_TASK);
    for (const a of [w.admin, w.superAdmin, w.coordinator, w.lead, w.techLead, w.member])
      expect((await ok(a, 'get_task', { code: c.code })).task_id).toBe(c.task_id);
    // Leaving the project hides it again.
    await system(removeProjectMember, { slug: w.slug, email: w.member.email });
    expect(await fails(w.member, 'get_task', { code: c.code })).toEqual(NOT_FOUND_TASK);
  });
});

describe('list_tasks', () => {
  it('only tasks of visible projects, newest first, filtered in SQL', async () => {
    const w = await world();
    const t1 = await ok(w.owner, 'create_task', { title: 'one', project_slug: w.slug, assignee_user_id: w.member.userId, priority: 'low' });
    h.clock.advance(1000);
    const t2 = await ok(w.member, 'create_task', { title: 'two', project_slug: w.slug, priority: 'high', kind: 'issue' });
    h.clock.advance(1000);
    const t3 = await ok(w.outsider, 'create_task', { title: 'foreign', project_slug: w.otherSlug });
    h.clock.advance(1000);

    const mine = await ok(w.member, 'list_tasks');
    expect(mine.items.map((i: any) => i.code)).toEqual([t2.code, t1.code]);
    expect(mine.items[1]).toEqual({
      task_id: t1.task_id,
      code: t1.code,
      title: 'one',
      kind: 'task',
      priority: 'low',
      status: 'todo',
      project_slug: w.slug,
      assignee: { id: w.member.userId, email: w.member.email },
      due_date: null,
      parent_task_code: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      url: `${base}/tasks/${t1.code}`,
    });
    expect((await ok(w.member, 'list_tasks', { assignee: 'me' })).items.map((i: any) => i.code)).toEqual([t1.code]);
    expect((await ok(w.owner, 'list_tasks', { assignee: w.member.userId })).items.map((i: any) => i.code)).toEqual([t1.code]);
    expect((await ok(w.member, 'list_tasks', { priority: 'high' })).items.map((i: any) => i.code)).toEqual([t2.code]);
    expect((await ok(w.member, 'list_tasks', { status: 'done' })).items).toEqual([]);
    expect((await ok(w.member, 'list_tasks', { project: w.slug, limit: 1 })).items.map((i: any) => i.code)).toEqual([t2.code]);
    // Another project's slug matches nothing for a non-member (no existence leak).
    expect(await ok(w.member, 'list_tasks', { project: w.otherSlug })).toEqual({ items: [] });
    expect((await ok(w.outsider, 'list_tasks')).items.map((i: any) => i.code)).toEqual([t3.code]);
    const adminView = (await ok(w.admin, 'list_tasks', { project: w.slug })).items.map((i: any) => i.code);
    expect(adminView).toEqual([t2.code, t1.code]);
    expect((await ok(w.coordinator, 'list_tasks', { project: w.otherSlug })).items.map((i: any) => i.code)).toEqual([t3.code]);
  });

  it('limit 1-200 (default 50) and filter values are validated', async () => {
    const w = await world();
    for (let i = 0; i < 52; i++)
      await sql(
        `insert into tasks (id, project_id, number, code, title, kind, priority, status, creator_user_id, is_draft, created_at, updated_at, published_at)
       select ?, p.id, ?, ?, 'bulk', 'task', 'medium', 'todo', ?, false, now(), now(), now() from projects p where p.slug = ?`,
        [randomUUID(), i + 1, `${w.code}-${i + 1}`, w.member.userId, w.slug],
      );
    expect((await ok(w.member, 'list_tasks')).items).toHaveLength(50);
    expect((await ok(w.member, 'list_tasks', { limit: 200 })).items).toHaveLength(52);
    for (const limit of [0, 201, 1.5, '10']) await invalid(w.member, 'list_tasks', { limit }, 'limit');
    await invalid(w.member, 'list_tasks', { assignee: 'someone' }, 'assignee');
    await invalid(w.member, 'list_tasks', { status: 'open' }, 'status');
    await invalid(w.member, 'list_tasks', { priority: 'p1' }, 'priority');
  });
});
