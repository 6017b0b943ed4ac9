// The task tools on the embedded database (PGlite): the same migration and SQL as PostgreSQL
// (counter upsert, row locks, recursive parent chain, uuid[] and jsonb columns, xmax upsert).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operator, startHarness, type Harness } from '../../helpers/harness.js';
import { toolCalls } from './rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: 'embedded' });
});
afterAll(async () => {
  await h?.close();
});

const { agent, ok } = toolCalls(() => h);

describe('task tools on the embedded database', () => {
  it('create, nest, claim, move, comment, read, list and report the day', async () => {
    const owner = await agent();
    const member = await agent();
    await operator(h, 'projects.create', { slug: 'emb', name: 'Embedded', owner: owner.email, members: [member.email], leads: [], tech_leads: [] });

    const root = await ok(owner, 'create_task', { title: 'root', project_slug: 'emb', reviewer_user_ids: [member.userId], cc_emails: [member.email] });
    expect(root).toMatchObject({ code: 'EMB-1', reviewers: [{ id: member.userId }], cc: [{ id: member.userId }] });
    const issue = await ok(owner, 'create_task', { title: 'issue', project_slug: 'emb', kind: 'issue', parent_task_code: 'EMB-1' });
    expect(issue.code).toBe('EMB-2');
    expect((await ok(member, 'claim_task', { code: 'emb-2' })).assignee.id).toBe(member.userId);
    expect((await ok(member, 'update_task_status', { code: 'EMB-2', status: 'in_progress', progress_note: 'go' })).comment_id).toEqual(expect.any(String));
    await ok(member, 'add_task_comment', { taskId: issue.task_id, body: 'more' });
    const t = await ok(member, 'get_task', { task_code: 'EMB-2' });
    expect(t).toMatchObject({
      parent_task_code: 'EMB-1',
      status: 'in_progress',
      comment_count: 2,
      status_history: [{ to: 'todo' }, { from: 'todo', to: 'in_progress' }],
    });
    expect((await ok(member, 'list_tasks', { assignee: 'me' })).items.map((i: any) => i.code)).toEqual(['EMB-2']);
    expect((await ok(member, 'list_projects')).items).toMatchObject([{ slug: 'emb', role: 'member' }]);
    expect(await ok(member, 'submit_daily_update', { availabilityStatus: 'available', mainTaskIds: ['EMB-2'] })).toMatchObject({ updated: false });
    expect(await ok(member, 'submit_daily_update', { availabilityStatus: 'limited', mainTaskIds: [] })).toMatchObject({ updated: true });
    expect((await ok(member, 'get_owner_intake_templates', { owner_email: owner.email })).checklist_source).toBe('system');
    const draft = await ok(owner, 'create_task', { title: 'd', as_draft: true });
    expect((await ok(owner, 'publish_task_draft', { task_id: draft.task_id, project_slug: 'emb' })).code).toBe('EMB-3');
  });
});
