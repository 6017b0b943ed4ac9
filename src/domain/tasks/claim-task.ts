// `claim_task` (SPEC C write tools, scope write:tasks; flat errors): a project member (any role),
// an admin or a coordinator takes an unassigned, still open task of kind `issue`. The creator
// and the project's owner and leads are notified in their inbox (not the claimer); an audit row
// is written. Claiming a task you already hold answers the same result again and changes nothing.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError, forbidden } from '../errors.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { addNotification } from '../inbox/notify.js';
import { canSeeAllProjects } from '../projects/project-roles.rules.js';
import { projectUsersWithRoles } from '../projects/projects.repository.js';
import { loadVisibleTask } from './task-access.js';
import { PersonRef, refineTaskRef, TaskRefFields, taskRefOf, taskUrl } from './task.view.js';
import { TASK_AUDIT } from './tasks.audit.js';
import { claimUnassigned, userById } from './tasks.repository.js';
import { CLAIMABLE_STATUSES, TASK_STATUSES } from './tasks.rules.js';
import { EVENT_LIMITS } from '../events/event.limits.js';

export const ClaimTaskInput = z.strictObject({ ...TaskRefFields }).superRefine(refineTaskRef);
export type ClaimTaskInput = z.infer<typeof ClaimTaskInput>;

export const ClaimTaskOutput = z.object({
  task_id: z.uuid(),
  code: z.string(),
  status: z.enum(TASK_STATUSES),
  assignee: PersonRef,
  url: z.string(),
});
export type ClaimTaskResult = z.infer<typeof ClaimTaskOutput>;

export const claimTask = defineOperation<ClaimTaskInput, ClaimTaskResult, AgentPrincipal>({
  name: 'tasks.claim',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:tasks'],
  idempotent: true,
  input: ClaimTaskInput,
  writes: true,
  handler: async (input, ctx) => {
    const principal = ctx.principal;
    const { em } = ctx;
    const { task, project } = await loadVisibleTask(em, principal, taskRefOf(input), { forUpdate: true });
    if (task.isDraft || !project) throw new DomainError('conflict', 'a draft cannot be claimed; publish it first', { code: 'task_is_draft' });
    // Visibility already means member or org-wide role; the rule is spelled out for when the two differ.
    if (project.role === null && !canSeeAllProjects(principal.userRole))
      throw forbidden('only project members, admins and coordinators may claim tasks', 'permission_denied');
    const result = (): ClaimTaskResult => ({
      task_id: task.id,
      code: task.code!,
      status: task.status,
      assignee: { id: principal.userId, email: principal.userEmail },
      url: taskUrl(ctx.config, task),
    });
    if (task.kind !== 'issue')
      throw new DomainError('conflict', `only tasks of kind issue can be claimed; ${task.code} is a ${task.kind}`, { code: 'not_an_issue' });
    if (task.assigneeUserId === principal.userId) return result();
    if (task.assigneeUserId !== null) throw new DomainError('conflict', `${task.code} is already assigned`, { code: 'already_assigned' });
    if (!CLAIMABLE_STATUSES.includes(task.status))
      throw new DomainError('conflict', `${task.code} is ${task.status}; only open tasks (${CLAIMABLE_STATUSES.join(', ')}) can be claimed`, {
        code: 'not_open',
      });

    const now = ctx.clock.now();
    if (!(await claimUnassigned(em, task.id, principal.userId, now)))
      throw new DomainError('conflict', `${task.code} is already assigned`, { code: 'already_assigned' });

    const me = await userById(em, principal.userId);
    const recipients = new Set([task.creatorUserId, ...(await projectUsersWithRoles(em, project.id, ['owner', 'lead']))]);
    recipients.delete(principal.userId);
    for (const userId of recipients) {
      addNotification(em, now, {
        userId,
        type: 'task',
        title: `${task.code} claimed by ${me?.name ?? principal.userEmail}`,
        summary: task.title.slice(0, EVENT_LIMITS.summaryMax),
        targetUrl: taskUrl(ctx.config, task),
        actorUserId: principal.userId,
        actorName: principal.userName,
        tags: [task.code!],
      });
    }
    recordToolAudit(em, ctx, {
      tool: 'claim_task',
      action: TASK_AUDIT.claimed,
      targetType: 'task',
      targetId: task.id,
      summary: { code: task.code, projectId: project.id, notified: recipients.size },
    });
    return result();
  },
});
