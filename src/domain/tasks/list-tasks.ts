// `list_tasks` (SPEC C read tools, scope read:tasks): published tasks in projects the caller may
// see (members; admins, super admins and coordinators see all), newest first. The visibility
// predicate and every filter run in SQL (tasks.repository.ts listVisibleTasks). An unknown or
// invisible project slug simply matches nothing.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { canSeeAllProjects } from '../projects/project-roles.rules.js';
import { TaskListItem, toTaskListItem } from './task.view.js';
import { listVisibleTasks } from './tasks.repository.js';
import { TASK_PRIORITIES, TASK_STATUSES } from './tasks.rules.js';
import { PROJECT_LIMITS } from '../projects/projects.limits.js';
import { TASK_LIMITS } from './tasks.limits.js';

export const ListTasksInput = z.strictObject({
  /** `me` or a user id. */
  assignee: z.union([z.literal('me'), z.uuid()], { error: 'must be "me" or a user id (UUID)' }).optional(),
  /** A project slug. */
  project: z.string().trim().min(1).max(PROJECT_LIMITS.slugMax).optional(),
  status: z.enum(TASK_STATUSES).optional(),
  priority: z.enum(TASK_PRIORITIES).optional(),
  limit: z.number().int().min(1).max(TASK_LIMITS.listMax).default(TASK_LIMITS.listDefault),
});
export type ListTasksInput = z.infer<typeof ListTasksInput>;

export const ListTasksOutput = z.object({ items: z.array(TaskListItem) });
export type ListTasksResult = z.infer<typeof ListTasksOutput>;

export const listTasks = defineOperation<ListTasksInput, ListTasksResult, AgentPrincipal>({
  name: 'tasks.list',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:tasks'],
  idempotent: false,
  input: ListTasksInput,
  handler: async (input, ctx) => {
    const rows = await listVisibleTasks(ctx.em, {
      viewerId: ctx.principal.userId,
      allProjects: canSeeAllProjects(ctx.principal.userRole),
      assigneeUserId: input.assignee === 'me' ? ctx.principal.userId : input.assignee?.toLowerCase(),
      projectSlug: input.project,
      status: input.status,
      priority: input.priority,
      limit: input.limit,
    });
    return { items: rows.map((r) => toTaskListItem(ctx.config, r)) };
  },
});
