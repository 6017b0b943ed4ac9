// Reading one task for an agent caller. A task the caller may not see answers exactly like an
// absent one (NOT_FOUND, never a 403 that would confirm it exists; SPEC Errors "404 ... id
// absent or outside visibility"):
//  - a published task is visible to the members (any role, owner included) of its active
//    project, and to admins, super admins and coordinators;
//  - a draft is visible to its creator only.
import type { EntityManager } from '@mikro-orm/core';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { canSeeProject } from '../projects/project-roles.rules.js';
import { findProjectWithRole, type ProjectForViewer } from '../projects/projects.repository.js';
import { findTask, type TaskRow } from './tasks.repository.js';
import type { TaskRef } from './task.view.js';

export interface VisibleTask {
  task: TaskRow;
  /** The task's project with the caller's role; null for a draft without a project. */
  project: ProjectForViewer | null;
}

export async function loadVisibleTask(em: EntityManager, principal: AgentPrincipal, ref: TaskRef, opts: { forUpdate?: boolean } = {}): Promise<VisibleTask> {
  const task = await findTask(em, ref, opts.forUpdate);
  if (!task) throw notFound('task');
  const project = task.projectId ? await findProjectWithRole(em, task.projectId, principal) : null;
  if (task.isDraft) {
    if (task.creatorUserId !== principal.userId) throw notFound('task');
    return { task, project: project ?? null };
  }
  if (!project || !canSeeProject(principal.userRole, project.role)) throw notFound('task');
  return { task, project };
}
