// Task workflow tools through POST /mcp: claim_task, update_task_status (the transition table),
// add_task_comment, submit_daily_update and get_owner_intake_templates (SPEC C write tools;
// "States and transitions / Tasks"; "Audit"; Versioning 4: task_code and new_status aliases).
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operator, startHarness, type Harness } from '../../helpers/harness.js';
import { runOperation } from '../../../src/app/run-operation.js';
import type { Operation } from '../../../src/domain/context.js';
import { setProjectMember } from '../../../src/domain/projects/set-project-member.js';
import { setOwnerIntakeTemplates } from '../../../src/domain/tasks/set-owner-intake-templates.js';
import { SYSTEM_INTAKE_CHECKLISTS, SYSTEM_INTAKE_DESCRIPTION } from '../../../src/domain/tasks/intake-templates.rules.js';
import { newAgent, toolCalls, toolText } from './rpc.js';

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
const system = async (op: Operation<any, any, any>, input: Record<string, unknown>) =>
  (await runOperation(h.svc.deps, op, { surface: 'cli', requestId: 'req_test', input, log: h.svc.deps.log, system: true })).output;

const { agent, raw, ok, fails, invalid } = toolCalls(() => h);

async function world() {
  const owner = await agent();
  const lead = await agent();
  const techLead = await agent();
  const member = await agent('member', undefined, 'Mia Member');
  const member2 = await agent();
  const reviewer = await agent();
  const outsider = await agent();
  const admin = await agent('admin');
  const coordinator = await agent('coordinator');
  const slug = `w${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', {
    slug,
    name: `Project ${slug}`,
    owner: owner.email,
    members: [member.email, member2.email, reviewer.email],
    leads: [lead.email],
    tech_leads: [techLead.email],
  });
  const otherSlug = `x${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', { slug: otherSlug, name: 'Other', owner: outsider.email, members: [], leads: [], tech_leads: [] });
  return { slug, code: slug.toUpperCase(), otherSlug, owner, lead, techLead, member, member2, reviewer, outsider, admin, coordinator };
}

const auditOf = (targetId: string) =>
  sql('select action, source, actor_user_id, token_id, summary from audit_log where target_id = ? order by created_at', [targetId]);
const inboxOf = (userId: string) => sql('select type, title, target_url, actor_user_id from notifications where user_id = ? order by created_at', [userId]);

const NOT_FOUND_TASK = { error: 'NOT_FOUND: task not found' };

describe('claim_task', () => {
  it('a member takes an unassigned issue; the creator, owner and leads are told; an audit row is written', async () => {
    const w = await world();
    const issue = await ok(w.techLead, 'create_task', { title: 'Printer on fire', project_slug: w.slug, kind: 'issue' });
    const out = await ok(w.member, 'claim_task', { code: issue.code });
    expect(out).toEqual({
      task_id: issue.task_id,
      code: issue.code,
      status: 'todo',
      assignee: { id: w.member.userId, email: w.member.email },
      url: `${base}/tasks/${issue.code}`,
    });
    expect((await ok(w.member, 'get_task', { code: issue.code })).assignee).toEqual({ id: w.member.userId, email: w.member.email });

    const note = { type: 'task', title: `${issue.code} claimed by Mia Member`, target_url: `${base}/tasks/${issue.code}`, actor_user_id: w.member.userId };
    for (const who of [w.techLead, w.owner, w.lead]) expect(await inboxOf(who.userId), 'creator, owner, lead').toEqual([note]);
    for (const who of [w.member, w.member2]) expect(await inboxOf(who.userId)).toEqual([]);

    const audit = await auditOf(issue.task_id);
    expect(audit.map((a: any) => a.action)).toEqual(['task.created', 'task.claimed']);
    expect(audit[1]).toMatchObject({
      source: 'mcp',
      actor_user_id: w.member.userId,
      token_id: w.member.tokenId,
      summary: { tool: 'claim_task', code: issue.code, notified: 3 },
    });

    // Claiming your own task again changes nothing; someone else gets a conflict.
    expect(await ok(w.member, 'claim_task', { task_id: issue.task_id })).toEqual(out);
    expect((await auditOf(issue.task_id)).length).toBe(2);
    expect(await fails(w.member2, 'claim_task', { code: issue.code })).toEqual({ error: `CONFLICT: ${issue.code} is already assigned` });
  });

  it('only unassigned open tasks of kind issue', async () => {
    const w = await world();
    const task = await ok(w.member, 'create_task', { title: 'planned', project_slug: w.slug });
    expect(await fails(w.member2, 'claim_task', { code: task.code })).toEqual({
      error: `CONFLICT: only tasks of kind issue can be claimed; ${task.code} is a task`,
    });
    const assigned = await ok(w.member, 'create_task', { title: 'mine', project_slug: w.slug, kind: 'issue', assignee_user_id: w.member.userId });
    expect((await fails(w.member2, 'claim_task', { code: assigned.code })).error).toBe(`CONFLICT: ${assigned.code} is already assigned`);
    const cancelled = await ok(w.member, 'create_task', { title: 'gone', project_slug: w.slug, kind: 'issue' });
    await ok(w.admin, 'update_task_status', { code: cancelled.code, status: 'cancelled' });
    expect((await fails(w.member2, 'claim_task', { code: cancelled.code })).error).toMatch(/^CONFLICT: .* is cancelled; only open tasks/);
    const draft = await ok(w.member, 'create_task', { title: 'draft', as_draft: true, kind: 'issue' });
    expect((await fails(w.member, 'claim_task', { task_id: draft.task_id })).error).toBe('CONFLICT: a draft cannot be claimed; publish it first');
  });

  it('project members, admins and coordinators may claim; others get NOT_FOUND', async () => {
    const w = await world();
    const mk = async () => (await ok(w.owner, 'create_task', { title: 'i', project_slug: w.slug, kind: 'issue' })).code;
    for (const who of [w.lead, w.admin, w.coordinator]) expect((await ok(who, 'claim_task', { code: await mk() })).assignee.id).toBe(who.userId);
    const code = await mk();
    expect(await fails(w.outsider, 'claim_task', { code })).toEqual(NOT_FOUND_TASK);
    expect(await fails(await agent('hr_admin'), 'claim_task', { code })).toEqual(NOT_FOUND_TASK);
    expect(await fails(w.member, 'claim_task', { code: `${w.code}-999` })).toEqual(NOT_FOUND_TASK);
    await invalid(w.member, 'claim_task', {}, 'code');
    // The deprecated alias works here too.
    expect((await ok(w.member, 'claim_task', { task_code: code.toLowerCase() })).code).toBe(code);
  });

  it('concurrent claims: exactly one wins', async () => {
    const w = await world();
    const issue = await ok(w.owner, 'create_task', { title: 'race', project_slug: w.slug, kind: 'issue' });
    const results = await Promise.all([w.member, w.member2, w.reviewer, w.lead].map((a) => raw(a, 'claim_task', { code: issue.code })));
    expect(results.filter((r) => r.body.result.isError === false)).toHaveLength(1);
    expect(results.filter((r) => r.body.result.isError === true).map((r) => toolText(r.body).error)).toEqual(
      Array(3).fill(`CONFLICT: ${issue.code} is already assigned`),
    );
  });
});

describe('update_task_status', () => {
  async function assignedTask(w: Awaited<ReturnType<typeof world>>) {
    return ok(w.owner, 'create_task', { title: 'Work', project_slug: w.slug, assignee_user_id: w.member.userId, reviewer_user_ids: [w.reviewer.userId] });
  }

  it('the assignee walks todo -> in_progress -> review; the reviewer finishes; history and comments follow', async () => {
    const w = await world();
    const t = await assignedTask(w);
    const s1 = await ok(w.member, 'update_task_status', { code: t.code, status: 'in_progress', progress_note: 'Started on the parser' });
    expect(s1).toEqual({ task_id: t.task_id, code: t.code, status: 'in_progress', new_status: 'in_progress', comment_id: expect.any(String) });
    const s2 = await ok(w.member, 'update_task_status', { task_id: t.task_id, status: 'review' });
    expect(s2).toMatchObject({ status: 'review', new_status: 'review', comment_id: null });
    expect(await inboxOf(w.reviewer.userId)).toEqual([
      { type: 'review', title: `Review requested: ${t.code} Work`, target_url: `${base}/tasks/${t.code}`, actor_user_id: w.member.userId },
    ]);
    const s3 = await ok(w.reviewer, 'update_task_status', { code: t.code, status: 'done', progress_note: 'LGTM' });
    expect(s3.status).toBe('done');

    const detail = await ok(w.member, 'get_task', { code: t.code });
    expect(detail.status).toBe('done');
    expect(detail.status_history.map((e: any) => [e.from, e.to, e.changed_by.id, e.comment_id])).toEqual([
      [null, 'todo', w.owner.userId, null],
      ['todo', 'in_progress', w.member.userId, s1.comment_id],
      ['in_progress', 'review', w.member.userId, null],
      ['review', 'done', w.reviewer.userId, s3.comment_id],
    ]);
    expect(detail.comments.map((c: any) => [c.id, c.author.id, c.body])).toEqual([
      [s1.comment_id, w.member.userId, 'Started on the parser'],
      [s3.comment_id, w.reviewer.userId, 'LGTM'],
    ]);
    expect(detail.comment_count).toBe(2);
    const audit = (await auditOf(t.task_id)).filter((a: any) => a.action === 'task.status.changed');
    expect(audit).toHaveLength(3);
    expect(audit[0]).toMatchObject({ source: 'mcp', summary: { tool: 'update_task_status', from: 'todo', to: 'in_progress', commentId: s1.comment_id } });
    expect(JSON.stringify(audit)).not.toContain('Started on the parser');
  });

  it('refuses transitions outside the table (CONFLICT) and callers without the right (FORBIDDEN)', async () => {
    const w = await world();
    const t = await assignedTask(w);
    expect(await fails(w.member, 'update_task_status', { code: t.code, status: 'done' })).toEqual({
      error: 'CONFLICT: cannot move a task from todo to done; allowed from todo: in_progress, cancelled',
    });
    expect(await fails(w.member, 'update_task_status', { code: t.code, status: 'review' })).toEqual({
      error: 'CONFLICT: cannot move a task from todo to review; allowed from todo: in_progress, cancelled',
    });
    expect(await fails(w.member, 'update_task_status', { code: t.code, status: 'todo' })).toEqual({ error: 'CONFLICT: the task is already todo' });
    // Not assignee, admin or reviewer: the owner, a lead, another member, a coordinator.
    for (const who of [w.owner, w.lead, w.member2, w.coordinator]) {
      expect(await fails(who, 'update_task_status', { code: t.code, status: 'in_progress' }), 'stranger').toEqual({
        error: 'FORBIDDEN: only the assignee, an admin, or a reviewer (review -> done or in_progress) may change the status',
      });
    }
    // A reviewer acts only on review.
    expect(await fails(w.reviewer, 'update_task_status', { code: t.code, status: 'in_progress' })).toEqual({
      error: 'FORBIDDEN: only the assignee or an admin may move a task from todo to in_progress',
    });
    await ok(w.member, 'update_task_status', { code: t.code, status: 'in_progress' });
    expect((await fails(w.reviewer, 'update_task_status', { code: t.code, status: 'review' })).error).toMatch(/^FORBIDDEN: only the assignee or an admin/);
    await ok(w.member, 'update_task_status', { code: t.code, status: 'review' });
    await ok(w.reviewer, 'update_task_status', { code: t.code, status: 'in_progress', progress_note: 'Needs tests' });
    await ok(w.member, 'update_task_status', { code: t.code, status: 'review' });
    await ok(w.member, 'update_task_status', { code: t.code, status: 'done' });
    // done: only an admin reopens it.
    expect(await fails(w.member, 'update_task_status', { code: t.code, status: 'in_progress' })).toEqual({
      error: 'FORBIDDEN: only an admin may move a task from done to in_progress',
    });
    expect(await fails(w.admin, 'update_task_status', { code: t.code, status: 'todo' })).toEqual({
      error: 'CONFLICT: cannot move a task from done to todo; allowed from done: in_progress',
    });
    expect((await ok(w.admin, 'update_task_status', { code: t.code, status: 'in_progress' })).status).toBe('in_progress');
    // An outsider learns nothing.
    expect(await fails(w.outsider, 'update_task_status', { code: t.code, status: 'done' })).toEqual(NOT_FOUND_TASK);
    // Nothing refused left a trace in the history.
    expect((await ok(w.member, 'get_task', { code: t.code })).status_history).toHaveLength(7);
  });

  it('cancelled -> todo is admin-only; the assignee may cancel', async () => {
    const w = await world();
    const t = await assignedTask(w);
    await ok(w.member, 'update_task_status', { code: t.code, status: 'cancelled' });
    expect((await fails(w.member, 'update_task_status', { code: t.code, status: 'todo' })).error).toBe(
      'FORBIDDEN: only an admin may move a task from cancelled to todo',
    );
    expect((await fails(w.admin, 'update_task_status', { code: t.code, status: 'in_progress' })).error).toMatch(
      /^CONFLICT: cannot move a task from cancelled to in_progress/,
    );
    expect((await ok(w.admin, 'update_task_status', { code: t.code, status: 'todo' })).status).toBe('todo');
  });

  it('deprecated aliases: task_code for code, new_status for status; output keeps new_status', async () => {
    const w = await world();
    const t = await assignedTask(w);
    const out = await ok(w.member, 'update_task_status', { task_code: t.code, new_status: 'in_progress' });
    expect(out).toMatchObject({ code: t.code, status: 'in_progress', new_status: 'in_progress' });
    expect((await ok(w.member, 'update_task_status', { code: t.code, status: 'review', new_status: 'review' })).status).toBe('review');
    await invalid(w.member, 'update_task_status', { code: t.code, status: 'done', new_status: 'in_progress' }, 'new_status');
    await invalid(w.member, 'update_task_status', { code: t.code }, 'status');
    await invalid(w.member, 'update_task_status', { code: t.code, status: 'closed' }, 'status');
    await invalid(w.member, 'update_task_status', { code: t.code, task_code: `${w.code}-77`, status: 'done' }, 'task_code');
    await invalid(w.member, 'update_task_status', { code: t.code, status: 'done', progress_note: 'x'.repeat(8001) }, 'progress_note');
    const [row] = (await auditOf(t.task_id)).filter((a: any) => a.action === 'task.status.changed');
    expect(row.summary.usedDeprecatedAlias).toBe(true);
  });
});

describe('add_task_comment', () => {
  it('anyone who sees the task comments; outsiders get NOT_FOUND; the audit has no body', async () => {
    const w = await world();
    const t = await ok(w.owner, 'create_task', { title: 'Talk', project_slug: w.slug });
    const c1 = await ok(w.member2, 'add_task_comment', { taskId: t.task_id, body: 'First thoughts' });
    expect(c1).toEqual({ commentId: expect.any(String) });
    const c2 = await ok(w.admin, 'add_task_comment', { taskId: t.code.toLowerCase(), body: 'Admin here' });
    const detail = await ok(w.owner, 'get_task', { code: t.code });
    expect(detail.comments).toEqual([
      { id: c1.commentId, author: { id: w.member2.userId, email: w.member2.email }, body: 'First thoughts', created_at: expect.any(String) },
      { id: c2.commentId, author: { id: w.admin.userId, email: w.admin.email }, body: 'Admin here', created_at: expect.any(String) },
    ]);
    expect(await fails(w.outsider, 'add_task_comment', { taskId: t.task_id, body: 'peek' })).toEqual(NOT_FOUND_TASK);
    expect(await fails(w.member, 'add_task_comment', { taskId: randomUUID(), body: 'x' })).toEqual(NOT_FOUND_TASK);
    await invalid(w.member, 'add_task_comment', { taskId: t.task_id, body: '   ' }, 'body');
    await invalid(w.member, 'add_task_comment', { taskId: t.task_id, body: 'x'.repeat(8001) }, 'body');
    await invalid(w.member, 'add_task_comment', { taskId: 'nope', body: 'x' }, 'taskId');
    await invalid(w.member, 'add_task_comment', { body: 'x' }, 'taskId');
    const audit = (await auditOf(t.task_id)).filter((a: any) => a.action === 'task.comment.added');
    expect(audit.map((a: any) => a.summary)).toEqual([
      { tool: 'add_task_comment', code: t.code, commentId: c1.commentId, bodyLength: 14 },
      { tool: 'add_task_comment', code: t.code, commentId: c2.commentId, bodyLength: 10 },
    ]);
  });
});

describe('submit_daily_update', () => {
  it('one entry per UTC day of the service clock; a second submit overwrites it', async () => {
    const w = await world();
    const t = await ok(w.member, 'create_task', { title: 'Main', project_slug: w.slug });
    const today = h.clock.now().toISOString().slice(0, 10);
    const first = await ok(w.member, 'submit_daily_update', { availabilityStatus: 'available', mainTaskIds: [t.task_id], contactWindow: '09:00-17:00 UTC' });
    expect(first).toEqual({ date: today, updated: false });
    const second = await ok(w.member, 'submit_daily_update', {
      availabilityStatus: 'limited',
      mainTaskIds: [t.code.toLowerCase(), t.task_id],
      blockers: 'Waiting on infra',
      note: 'Half day',
    });
    expect(second).toEqual({ date: today, updated: true });
    const rows = await sql('select day::text as day, availability_status, main_task_ids, contact_window, blockers, note from daily_updates where user_id = ?', [
      w.member.userId,
    ]);
    expect(rows).toEqual([
      { day: today, availability_status: 'limited', main_task_ids: [t.task_id], contact_window: null, blockers: 'Waiting on infra', note: 'Half day' },
    ]);

    h.clock.advance(24 * 60 * 60 * 1000);
    const tomorrow = h.clock.now().toISOString().slice(0, 10);
    expect(await ok(w.member, 'submit_daily_update', { availabilityStatus: 'out_of_office', mainTaskIds: [] })).toEqual({ date: tomorrow, updated: false });
    expect((await sql('select count(*)::int as n from daily_updates where user_id = ?', [w.member.userId]))[0].n).toBe(2);
    // Other users have their own entry.
    expect(await ok(w.member2, 'submit_daily_update', { availabilityStatus: 'available', mainTaskIds: [] })).toEqual({ date: tomorrow, updated: false });

    const audit = await sql(`select source, summary from audit_log where action = 'daily_update.submitted' and actor_user_id = ? order by created_at`, [
      w.member.userId,
    ]);
    expect(audit[1]).toEqual({
      source: 'mcp',
      summary: {
        tool: 'submit_daily_update',
        date: today,
        updated: true,
        availabilityStatus: 'limited',
        mainTaskCount: 1,
        hasBlockers: true,
        hasNote: true,
        hasContactWindow: false,
      },
    });
  });

  it('main tasks must be tasks the caller can see; input is validated; scope write:tasks', async () => {
    const w = await world();
    const foreign = await ok(w.outsider, 'create_task', { title: 'theirs', project_slug: w.otherSlug });
    expect(await fails(w.member, 'submit_daily_update', { availabilityStatus: 'available', mainTaskIds: [foreign.code] })).toEqual({
      error: `NOT_FOUND: task ${foreign.code} not found`,
    });
    expect((await fails(w.member, 'submit_daily_update', { availabilityStatus: 'available', mainTaskIds: [randomUUID()] })).error).toMatch(
      /^NOT_FOUND: task .* not found$/,
    );
    await invalid(w.member, 'submit_daily_update', { availabilityStatus: 'sleepy', mainTaskIds: [] }, 'availabilityStatus');
    await invalid(w.member, 'submit_daily_update', { availabilityStatus: 'available' }, 'mainTaskIds');
    await invalid(w.member, 'submit_daily_update', { availabilityStatus: 'available', mainTaskIds: ['what'] }, 'mainTaskIds[0]');
    await invalid(w.member, 'submit_daily_update', { availabilityStatus: 'available', mainTaskIds: [], note: 'x'.repeat(2001) }, 'note');
    const readOnly = await newAgent(h, ['read:*'], w.member);
    const r = await raw(readOnly, 'submit_daily_update', { availabilityStatus: 'available', mainTaskIds: [] });
    expect(r.status).toBe(403);
    expect(r.body.error.data.missing_scope).toBe('write:tasks');
  });
});

describe('get_owner_intake_templates', () => {
  it('system defaults, the owner\'s own templates, and "none" when the owner wants no checklist', async () => {
    const w = await world();
    expect(await ok(w.member, 'get_owner_intake_templates')).toEqual({
      owner: { id: w.member.userId, email: w.member.email, name: 'Mia Member' },
      description: SYSTEM_INTAKE_DESCRIPTION,
      description_source: 'system',
      checklists: SYSTEM_INTAKE_CHECKLISTS,
      checklist_source: 'system',
    });
    await system(setOwnerIntakeTemplates, {
      owner_email: w.owner.email,
      description: { label: 'Ops request', body: '## What broke\n\n## Since when' },
      checklists: [{ title: 'Triage', items: ['Severity set', 'Runbook linked'] }],
    });
    const own = await ok(w.member, 'get_owner_intake_templates', { owner_email: w.owner.email.toUpperCase() });
    expect(own).toEqual({
      owner: { id: w.owner.userId, email: w.owner.email, name: 'A member' },
      description: { label: 'Ops request', body: '## What broke\n\n## Since when' },
      description_source: 'owner',
      checklists: [{ title: 'Triage', items: ['Severity set', 'Runbook linked'] }],
      checklist_source: 'owner',
    });
    // owner_user_id wins over owner_email.
    expect((await ok(w.member, 'get_owner_intake_templates', { owner_user_id: w.lead.userId, owner_email: w.owner.email })).owner.id).toBe(w.lead.userId);

    await system(setOwnerIntakeTemplates, { owner_email: w.lead.email, checklists: [] });
    expect(await ok(w.member, 'get_owner_intake_templates', { owner_user_id: w.lead.userId })).toMatchObject({
      description_source: 'system',
      checklists: [],
      checklist_source: 'none',
    });
    await system(setOwnerIntakeTemplates, { owner_email: w.lead.email, clear: true });
    expect((await ok(w.member, 'get_owner_intake_templates', { owner_user_id: w.lead.userId })).checklist_source).toBe('system');
  });

  it('an unknown owner is NOT_FOUND; inputs validated; scope read:tasks', async () => {
    const w = await world();
    expect(await fails(w.member, 'get_owner_intake_templates', { owner_user_id: randomUUID() })).toEqual({ error: 'NOT_FOUND: owner not found' });
    expect(await fails(w.member, 'get_owner_intake_templates', { owner_email: 'ghost@example.test' })).toEqual({ error: 'NOT_FOUND: owner not found' });
    await invalid(w.member, 'get_owner_intake_templates', { owner_email: 'nope' }, 'owner_email');
    const metaOnly = await newAgent(h, ['read:meta'], w.member);
    const r = await raw(metaOnly, 'get_owner_intake_templates');
    expect(r.status).toBe(403);
    expect(r.body.error.data.missing_scope).toBe('read:tasks');
  });
});

describe('project membership (operator operations)', () => {
  it('adding a member shows them the project and its tasks; a new owner keeps the old one as lead', async () => {
    const w = await world();
    const t = await ok(w.owner, 'create_task', { title: 'x', project_slug: w.slug });
    expect(await fails(w.outsider, 'get_task', { code: t.code })).toEqual(NOT_FOUND_TASK);
    expect(await system(setProjectMember, { slug: w.slug, email: w.outsider.email, role: 'tech_lead' })).toMatchObject({ role: 'tech_lead', changed: true });
    expect((await ok(w.outsider, 'get_task', { code: t.code })).task_id).toBe(t.task_id);
    expect((await ok(w.outsider, 'list_projects')).items.find((p: any) => p.slug === w.slug).role).toBe('tech_lead');

    await system(setProjectMember, { slug: w.slug, email: w.member.email, role: 'owner' });
    expect((await ok(w.member, 'list_projects')).items[0].role).toBe('owner');
    expect((await ok(w.owner, 'list_projects')).items.find((p: any) => p.slug === w.slug).role).toBe('lead');
    const audit = await sql(
      `select action, source from audit_log where action like 'project.member.%' and target_id = (select id::text from projects where slug = ?)`,
      [w.slug],
    );
    expect(audit).toEqual([
      { action: 'project.member.set', source: 'cli' },
      { action: 'project.member.set', source: 'cli' },
    ]);
  });
});
