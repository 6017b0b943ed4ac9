// `publish_task_draft` (scope write:tasks; structured errors like create_task): turns the caller's
// own draft into a task. Drafts "keep assignee and reviewers and are re-checked at publish" (SPEC C
// create_task), so everything create_task checks is checked again here, against the project as it
// is now (agent protocol 11); the task then gets its number and code and starts in `todo`.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { addNotification } from '../inbox/notify.js';
import { findVisibleProject } from '../projects/projects.repository.js';
import { loadVisibleTask } from './task-access.js';
import { taskUrl } from './task.view.js';
import { assertMayAssign, createdTaskOutput, fieldError, projectSlugRequired, resolveParent, resolveParticipants, type CreatedTask } from './task-placement.js';
import { TASK_AUDIT } from './tasks.audit.js';
import { insertStatusHistory, nextTaskNumber, publishDraftRow, retainTaskPeople, taskPeople, userById } from './tasks.repository.js';
import { INITIAL_TASK_STATUS, taskCode } from './tasks.rules.js';
import { PROJECT_LIMITS } from '../projects/projects.limits.js';

export const PublishTaskDraftInput = z.strictObject({
  task_id: z.uuid({ error: 'must be a UUID' }),
  /** Needed when the draft was saved without a project; otherwise moves it to this project. */
  project_slug: z.string().trim().max(PROJECT_LIMITS.slugMax).nullish(),
});
export type PublishTaskDraftInput = z.infer<typeof PublishTaskDraftInput>;

export const publishTaskDraft = defineOperation<PublishTaskDraftInput, CreatedTask, AgentPrincipal>({
  name: 'tasks.publish_draft',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:tasks'],
  idempotent: true,
  input: PublishTaskDraftInput,
  writes: true,
  handler: async (input, ctx) => {
    const principal = ctx.principal;
    const { em } = ctx;
    const { task, project: draftProject } = await loadVisibleTask(em, principal, { id: input.task_id }, { forUpdate: true }).catch((err) => {
      throw err instanceof DomainError && err.kind === 'not_found' ? fieldError('not_found', 'task not found', 'not_found', 'task_id') : err;
    });
    if (!task.isDraft) throw fieldError('conflict', `task ${task.code} is already published`, 'already_published', 'task_id');

    const slug = input.project_slug ? input.project_slug : null;
    let project = null;
    if (slug) {
      project = (await findVisibleProject(em, slug, principal)) ?? null;
      if (!project) throw fieldError('not_found', `project ${slug} not found`, 'project_not_found', 'project_slug');
    } else if (task.projectId) {
      // The draft's own project must still exist and be visible.
      project = draftProject && (await findVisibleProject(em, draftProject.slug, principal));
      if (!project) throw fieldError('not_found', "the draft's project was not found", 'project_not_found', 'project_slug');
    } else {
      throw projectSlugRequired();
    }

    const parent = task.parentTaskId ? await resolveParent(em, principal, { id: task.parentTaskId }, project.id, task.id) : null;
    let assignee = null;
    if (task.assigneeUserId) {
      const user = await userById(em, task.assigneeUserId);
      if (user?.status !== 'active') throw fieldError('not_found', "the draft's assignee is no longer active", 'assignee_not_found', 'assignee_user_id');
      assignee = { user, field: 'assignee_user_id' as const };
      await assertMayAssign(em, principal, project, assignee);
    }
    const reviewers = await resolveParticipants(
      em,
      principal.userId,
      (await taskPeople(em, 'reviewers', task.id)).map((u) => u.id),
      [],
      project.id,
    );
    const cc = await resolveParticipants(
      em,
      principal.userId,
      (await taskPeople(em, 'cc', task.id)).map((u) => u.id),
      [],
      project.id,
    );
    await retainTaskPeople(
      em,
      'reviewers',
      task.id,
      reviewers.map((u) => u.id),
    );
    await retainTaskPeople(
      em,
      'cc',
      task.id,
      cc.map((u) => u.id),
    );

    const now = ctx.clock.now();
    const number = await nextTaskNumber(em, project.id);
    const code = taskCode(project.slug, number);
    await publishDraftRow(em, task.id, {
      projectId: project.id,
      number,
      code,
      parentTaskId: parent?.id ?? null,
      assigneeUserId: assignee?.user.id ?? null,
      now,
    });
    await insertStatusHistory(em, { taskId: task.id, from: null, to: INITIAL_TASK_STATUS, byUserId: principal.userId, commentId: null, now });
    if (assignee && assignee.user.id !== principal.userId) {
      addNotification(em, now, {
        userId: assignee.user.id,
        type: 'task',
        title: `Assigned to you: ${code} ${task.title}`,
        targetUrl: taskUrl(ctx.config, { id: task.id, code }),
        actorUserId: principal.userId,
        actorName: principal.userName,
        tags: [code],
      });
    }
    recordToolAudit(em, ctx, {
      tool: 'publish_task_draft',
      action: TASK_AUDIT.draftPublished,
      targetType: 'task',
      targetId: task.id,
      summary: { code, projectId: project.id, assigneeUserId: assignee?.user.id ?? null, reviewerCount: reviewers.length, ccCount: cc.length },
    });
    return createdTaskOutput(
      ctx.config,
      { id: task.id, code, priority: task.priority, isDraft: false, status: INITIAL_TASK_STATUS },
      { assignee: assignee?.user ?? null, reviewers, cc },
    );
  },
});
