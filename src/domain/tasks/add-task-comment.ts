// `add_task_comment` (SPEC C write tools, scope write:tasks; flat errors): anyone who can see the
// task may comment (a draft: its creator). `taskId` is the task's uuid; its code is accepted too.
// The audit summary records the length, never the body.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { loadVisibleTask } from './task-access.js';
import { TASK_AUDIT } from './tasks.audit.js';
import { insertComment, touchTask } from './tasks.repository.js';
import { isUuid, normalizeTaskCode, TASK_CODE_PATTERN } from './tasks.rules.js';
import { TASK_LIMITS } from './tasks.limits.js';

export const AddTaskCommentInput = z.strictObject({
  taskId: z
    .string()
    .trim()
    .refine((s) => isUuid(s) || TASK_CODE_PATTERN.test(s), { error: 'must be a task id (UUID) or code' }),
  body: z.string().trim().min(1).max(TASK_LIMITS.commentMax),
});
export type AddTaskCommentInput = z.infer<typeof AddTaskCommentInput>;

export const AddTaskCommentOutput = z.object({ commentId: z.uuid() });
export type AddTaskCommentResult = z.infer<typeof AddTaskCommentOutput>;

export const addTaskComment = defineOperation<AddTaskCommentInput, AddTaskCommentResult, AgentPrincipal>({
  name: 'tasks.add_comment',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:tasks'],
  idempotent: true,
  input: AddTaskCommentInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const ref = isUuid(input.taskId) ? { id: input.taskId.toLowerCase() } : { code: normalizeTaskCode(input.taskId) };
    const { task } = await loadVisibleTask(em, ctx.principal, ref);
    const now = ctx.clock.now();
    const commentId = await insertComment(em, { taskId: task.id, authorUserId: ctx.principal.userId, body: input.body, now });
    await touchTask(em, task.id, now);
    recordToolAudit(em, ctx, {
      tool: 'add_task_comment',
      action: TASK_AUDIT.commentAdded,
      targetType: 'task',
      targetId: task.id,
      summary: { code: task.code, commentId, bodyLength: input.body.length },
    });
    return { commentId };
  },
});
