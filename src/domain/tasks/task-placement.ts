// The checks create_task and publish_task_draft share: who is assigned and whether the caller may
// assign them, the reviewer and cc lists, and where the task sits (parent chain). Errors name the
// input field (create_task answers in the structured form {type, title, detail, field}).
import type { EntityManager } from '@mikro-orm/core';
import type { DomainConfig } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { canAssignOthers, canSeeProject } from '../projects/project-roles.rules.js';
import { usersWhoSeeProject, type ProjectForViewer } from '../projects/projects.repository.js';
import { loadVisibleTask } from './task-access.js';
import { personRef, taskUrl, type PersonRef } from './task.view.js';
import { ancestorIds, usersByIdsOrEmails, type PersonRow, type TaskRow } from './tasks.repository.js';
import { checkParentChain, isUuid, keepParticipants, type TaskPriority } from './tasks.rules.js';

export const fieldError = (kind: 'validation' | 'not_found' | 'forbidden' | 'conflict', message: string, code: string, field: string): DomainError =>
  new DomainError(kind, message, { code, extra: { field } });

/**
 * SPEC C create_task: a missing project_slug is answered in the flat form with exactly this text.
 * `flat_error` asks the MCP error mapper for that literal flat envelope; without it the error is
 * still a validation failure naming `project_slug`.
 */
export const projectSlugRequired = (): DomainError =>
  new DomainError('validation', 'project_slug is required', {
    code: 'project_slug_required',
    extra: { field: 'project_slug', flat_error: 'project_slug is required' },
  });

export type AssigneeField = 'assignee_user_id' | 'assignee_email';

/** The requested assignee (`assignee_user_id` wins over `assignee_email`); absent or inactive is not found. */
export async function resolveAssignee(
  em: EntityManager,
  input: { assignee_user_id?: string; assignee_email?: string },
): Promise<{ user: PersonRow; field: AssigneeField } | null> {
  const field: AssigneeField | null = input.assignee_user_id !== undefined ? 'assignee_user_id' : input.assignee_email !== undefined ? 'assignee_email' : null;
  if (!field) return null;
  const [user] =
    field === 'assignee_user_id'
      ? await usersByIdsOrEmails(em, [input.assignee_user_id!], [])
      : await usersByIdsOrEmails(em, [], [input.assignee_email!.trim().toLowerCase()]);
  if (user?.status !== 'active') throw fieldError('not_found', `assignee not found (${field})`, 'assignee_not_found', field);
  return { user, field };
}

/**
 * Assigning someone other than yourself needs a super admin, the project owner or a project tech
 * lead (structured forbidden, title permission_denied); the assignee must be able to see the
 * project, or they could never open their own task.
 */
export async function assertMayAssign(
  em: EntityManager,
  principal: AgentPrincipal,
  project: ProjectForViewer,
  assignee: { user: PersonRow; field: AssigneeField },
): Promise<void> {
  if (assignee.user.id === principal.userId) return;
  if (!canAssignOthers(principal.userRole, project.role)) {
    throw fieldError(
      'forbidden',
      'assigning a task to someone else needs a super admin, the project owner or a project tech lead',
      'permission_denied',
      assignee.field,
    );
  }
  const sees = await usersWhoSeeProject(em, project.id, [assignee.user.id]);
  if (!sees.has(assignee.user.id)) {
    throw fieldError('validation', `the assignee is not a member of project ${project.slug}`, 'assignee_not_in_project', assignee.field);
  }
}

/**
 * Reviewer or cc users to keep: unknown, inactive and self ids/emails are dropped silently; with a
 * project, so are users who cannot see it. Order of the request is kept.
 */
export async function resolveParticipants(
  em: EntityManager,
  callerId: string,
  ids: readonly string[],
  emails: readonly string[],
  projectId: string | null,
): Promise<PersonRow[]> {
  const uuidIds = ids.filter(isUuid).map((i) => i.toLowerCase());
  const lowerEmails = emails.map((e) => e.trim().toLowerCase());
  const users = await usersByIdsOrEmails(em, uuidIds, lowerEmails);
  const known = new Map<string, PersonRow>();
  for (const u of users) {
    known.set(u.id.toLowerCase(), u);
    known.set(u.email.toLowerCase(), u);
  }
  const canSee = projectId
    ? await usersWhoSeeProject(
        em,
        projectId,
        users.filter((u) => u.status === 'active').map((u) => u.id),
      )
    : undefined;
  const kept = keepParticipants([...uuidIds, ...lowerEmails], known, callerId, canSee);
  return kept.map((id) => known.get(id)!);
}

/** The parent task by code: visible, published, in the same project, and not too deep or cyclic. */
export async function resolveParent(
  em: EntityManager,
  principal: AgentPrincipal,
  ref: { code: string } | { id: string },
  projectId: string | null,
  taskId?: string,
): Promise<TaskRow> {
  let parent: TaskRow;
  try {
    parent = (await loadVisibleTask(em, principal, ref)).task;
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') throw fieldError('not_found', 'parent task not found', 'parent_not_found', 'parent_task_code');
    throw err;
  }
  if (parent.isDraft) throw fieldError('not_found', 'parent task not found', 'parent_not_found', 'parent_task_code');
  if (projectId && parent.projectId !== projectId) {
    throw fieldError('validation', 'the parent task belongs to another project', 'parent_in_other_project', 'parent_task_code');
  }
  const chain = await ancestorIds(em, parent.id);
  const check = checkParentChain(chain, taskId);
  if (!check.ok) throw fieldError('validation', check.message, check.reason === 'cycle' ? 'parent_cycle' : 'parent_too_deep', 'parent_task_code');
  return parent;
}

/** Is the caller still allowed to place a task in this project (publish re-check)? */
export const seesProject = (principal: AgentPrincipal, project: ProjectForViewer): boolean => canSeeProject(principal.userRole, project.role);

export interface CreatedTask {
  task_id: string;
  code: string | null;
  url: string;
  assignee: PersonRef | null;
  priority: TaskPriority;
  cc: PersonRef[];
  reviewers: PersonRef[];
  draft: boolean;
  status: string;
}

export const createdTaskOutput = (
  config: DomainConfig,
  t: { id: string; code: string | null; priority: TaskPriority; isDraft: boolean; status: string },
  people: { assignee: PersonRow | null; reviewers: PersonRow[]; cc: PersonRow[] },
): CreatedTask => ({
  task_id: t.id,
  code: t.code,
  url: taskUrl(config, t),
  assignee: people.assignee ? personRef(people.assignee) : null,
  priority: t.priority,
  cc: people.cc.map(personRef),
  reviewers: people.reviewers.map(personRef),
  draft: t.isDraft,
  status: t.status,
});
