// `update_task_status` (SPEC C write tools, scope write:tasks; flat errors): moves a task along
// the transition table of tasks.rules.ts. Allowed for the assignee, an admin, or a reviewer for
// review -> done / in_progress (SPEC "States and transitions / Tasks"); reopening done work and
// reviving cancelled work are admin-only. A progress_note becomes a task comment by the caller
// and is linked from the status-history row. Moving to review notifies the reviewers.
// `task_code` (input) and `new_status` (input and output) are deprecated aliases (Versioning 4).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { addNotification } from '../inbox/notify.js';
import { isOrgAdmin } from '../projects/project-roles.rules.js';
import { loadVisibleTask } from './task-access.js';
import { refineTaskRef, TaskRefFields, taskRefOf, taskUrl } from './task.view.js';
import { TASK_AUDIT } from './tasks.audit.js';
import { insertComment, insertStatusHistory, isReviewer, setTaskStatus, taskPeople } from './tasks.repository.js';
import { checkTransition, TASK_STATUSES, type TaskStatus } from './tasks.rules.js';
import { TASK_LIMITS } from './tasks.limits.js';

export const UpdateTaskStatusInput = z
  .strictObject({
    ...TaskRefFields,
    status: z.enum(TASK_STATUSES).optional(),
    /** Deprecated alias of `status`. */
    new_status: z.enum(TASK_STATUSES).optional(),
    progress_note: z.string().trim().min(1).max(TASK_LIMITS.commentMax).optional(),
  })
  .superRefine((v, ctx) => {
    refineTaskRef(v, ctx);
    if (v.status === undefined && v.new_status === undefined)
      ctx.addIssue({ code: 'custom', path: ['status'], message: 'is required', params: { code: 'required' } });
    if (v.status !== undefined && v.new_status !== undefined && v.status !== v.new_status) {
      ctx.addIssue({
        code: 'custom',
        path: ['new_status'],
        message: 'new_status (deprecated) disagrees with status; send only status',
        params: { code: 'conflicting_alias' },
      });
    }
  });
export type UpdateTaskStatusInput = z.infer<typeof UpdateTaskStatusInput>;

export const UpdateTaskStatusOutput = z.object({
  task_id: z.uuid(),
  code: z.string(),
  status: z.enum(TASK_STATUSES),
  /** Deprecated duplicate of `status`. */
  new_status: z.enum(TASK_STATUSES),
  /** The comment made of progress_note; null without one. */
  comment_id: z.uuid().nullable(),
});
export type UpdateTaskStatusResult = z.infer<typeof UpdateTaskStatusOutput>;

export const updateTaskStatus = defineOperation<UpdateTaskStatusInput, UpdateTaskStatusResult, AgentPrincipal>({
  name: 'tasks.update_status',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:tasks'],
  idempotent: true,
  input: UpdateTaskStatusInput,
  writes: true,
  handler: async (input, ctx) => {
    const principal = ctx.principal;
    const to = (input.status ?? input.new_status) as TaskStatus;
    const { em } = ctx;
    const { task } = await loadVisibleTask(em, principal, taskRefOf(input), { forUpdate: true });
    if (task.isDraft) throw new DomainError('conflict', 'a draft has no status to change; publish it first', { code: 'task_is_draft' });
    const actor = {
      isAssignee: task.assigneeUserId === principal.userId,
      isAdmin: isOrgAdmin(principal.userRole),
      isReviewer: await isReviewer(em, task.id, principal.userId),
    };
    const check = checkTransition(task.status, to, actor);
    if (!check.ok) {
      if (check.reason === 'forbidden') throw new DomainError('forbidden', check.message, { code: 'permission_denied' });
      throw new DomainError('conflict', check.message, {
        code: check.reason === 'same_status' ? 'same_status' : 'transition_not_allowed',
        extra: check.reason === 'not_allowed' ? { allowed: check.allowed } : {},
      });
    }
    const now = ctx.clock.now();
    const commentId = input.progress_note ? await insertComment(em, { taskId: task.id, authorUserId: principal.userId, body: input.progress_note, now }) : null;
    await setTaskStatus(em, task.id, to, now);
    await insertStatusHistory(em, { taskId: task.id, from: task.status, to, byUserId: principal.userId, commentId, now });
    if (to === 'review') {
      for (const r of await taskPeople(em, 'reviewers', task.id)) {
        if (r.id === principal.userId || r.status !== 'active') continue;
        addNotification(em, now, {
          userId: r.id,
          type: 'review',
          title: `Review requested: ${task.code} ${task.title}`,
          targetUrl: taskUrl(ctx.config, task),
          actorUserId: principal.userId,
          actorName: principal.userName,
          tags: [task.code!],
        });
      }
    }
    recordToolAudit(em, ctx, {
      tool: 'update_task_status',
      action: TASK_AUDIT.statusChanged,
      targetType: 'task',
      targetId: task.id,
      summary: { code: task.code, from: task.status, to, commentId, usedDeprecatedAlias: input.task_code !== undefined || input.new_status !== undefined },
    });
    return { task_id: task.id, code: task.code!, status: to, new_status: to, comment_id: commentId };
  },
});
