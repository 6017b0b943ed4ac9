// `get_task` (SPEC C read tools, scope read:tasks): one task by `code` or `task_id` (`task_code`
// is the deprecated alias of `code`) with its assignees, reviewers, cc, status history and newest
// comments. Outside the caller's visibility it is NOT_FOUND, exactly like an absent task.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { loadVisibleTask } from './task-access.js';
import { personRef, projectRefOf, refineTaskRef, type TaskDetail, TaskRefFields, taskRefOf, taskUrl } from './task.view.js';
import { recentComments, statusHistory, taskPeople, userById } from './tasks.repository.js';
import { TASK_LIMITS } from './tasks.limits.js';

export const GetTaskInput = z.strictObject({ ...TaskRefFields }).superRefine(refineTaskRef);
export type GetTaskInput = z.infer<typeof GetTaskInput>;

export const getTask = defineOperation<GetTaskInput, TaskDetail, AgentPrincipal>({
  name: 'tasks.get',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:tasks'],
  idempotent: false,
  input: GetTaskInput,
  handler: async (input, ctx) => {
    const em = ctx.em;
    const { task, project } = await loadVisibleTask(em, ctx.principal, taskRefOf(input));
    // One connection per operation: sequential reads (PGlite serialises them anyway).
    const creator = await userById(em, task.creatorUserId);
    const assignee = task.assigneeUserId ? await userById(em, task.assigneeUserId) : undefined;
    const reviewers = await taskPeople(em, 'reviewers', task.id);
    const cc = await taskPeople(em, 'cc', task.id);
    const history = await statusHistory(em, task.id);
    const comments = await recentComments(em, task.id, TASK_LIMITS.commentsShown);
    return {
      task_id: task.id,
      code: task.code,
      title: task.title,
      description: task.description,
      kind: task.kind,
      priority: task.priority,
      status: task.status,
      draft: task.isDraft,
      project: projectRefOf(ctx.config, project),
      parent_task_code: task.parentCode,
      due_date: task.dueDate,
      creator: creator ? personRef(creator) : { id: task.creatorUserId, email: '' },
      assignee: assignee ? personRef(assignee) : null,
      assignees: assignee ? [{ ...personRef(assignee), name: assignee.name }] : [],
      reviewers: reviewers.map(personRef),
      cc: cc.map(personRef),
      status_history: history.map((h) => ({ from: h.from, to: h.to, changed_by: { id: h.byId, email: h.byEmail }, comment_id: h.commentId, at: h.at })),
      comments: comments.items.map((c) => ({ id: c.id, author: { id: c.authorId, email: c.authorEmail }, body: c.body, created_at: c.createdAt })),
      comment_count: comments.total,
      created_at: task.createdAt,
      updated_at: task.updatedAt,
      published_at: task.publishedAt,
      url: taskUrl(ctx.config, task),
    };
  },
});
