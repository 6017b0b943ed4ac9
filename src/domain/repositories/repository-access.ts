// Who may do what with a project's repositories (SPEC C):
//  - read tools: anyone who sees the project (its members of any role, admins, super admins,
//    coordinators). An unknown, archived or invisible project is NOT_FOUND: nothing tells an
//    outsider that the slug exists.
//  - bind and unbind: the token scope (checked by the runner), then, in a project the caller
//    sees, a super admin, the project's lead or tech lead, or a holder of the `code.repo.bind`
//    capability. The project's owner counts as a lead (the owner outranks the lead everywhere
//    else; refusing them would be the only place it does not). Others: FORBIDDEN permission_denied.
import type { EntityManager } from '@mikro-orm/core';
import type { AgentPrincipal } from '../principal.js';
import { forbidden, notFound } from '../errors.js';
import { findVisibleProject, type ProjectForViewer } from '../projects/projects.repository.js';
import { userHasCapability } from './repositories.repository.js';

export async function requireVisibleProject(em: EntityManager, principal: AgentPrincipal, slug: string): Promise<ProjectForViewer> {
  const project = await findVisibleProject(em, slug, principal);
  if (!project) throw notFound('project');
  return project;
}

const BINDER_PROJECT_ROLES: ReadonlySet<string> = new Set(['owner', 'lead', 'tech_lead']);

export async function requireBinder(em: EntityManager, principal: AgentPrincipal, project: ProjectForViewer): Promise<void> {
  if (principal.userRole === 'super_admin') return;
  if (project.role !== null && BINDER_PROJECT_ROLES.has(project.role)) return;
  if (await userHasCapability(em, principal.userId, 'code.repo.bind')) return;
  throw forbidden('binding repositories needs a super admin, the project lead or tech lead, or the code.repo.bind capability', 'permission_denied');
}

/** `${publicBaseUrl}/api/internal-os/integrations/repositories/<id>/push` */
export const pushWebhookUrl = (publicBaseUrl: string, repoId: string): string => `${publicBaseUrl}/api/internal-os/integrations/repositories/${repoId}/push`;
