// Membership management by an agent-token caller (ProjectService SetProjectMember and
// RemoveProjectMember; scope write:projects). The input schemas and every membership rule are the
// operator operations' own (project-members.ts); this adds who may call
// (project-membership.rules.ts) and project isolation: a project the caller cannot see is
// NOT_FOUND, exactly like an absent or archived one. Audited with the caller and token.
import { defineOperation, type OpContext } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { forbidden, notFound } from '../errors.js';
import { canManageMembers, canNameOwner } from './project-membership.rules.js';
import {
  applyRemoveMember,
  applySetMember,
  lockProject,
  RemoveProjectMemberInput,
  SetProjectMemberInput,
  type ProjectMemberResult,
} from './project-members.js';
import type { Project } from './projects.entity.js';
import type { ProjectRole } from './project-roles.rules.js';
import { findVisibleProject } from './projects.repository.js';

export const PROJECT_MEMBER_SCOPES = ['write:projects'] as const;

/**
 * The project the caller may manage, locked (see lockProject), with the caller's role read after
 * the lock. Absent, archived and invisible projects are all NOT_FOUND.
 */
async function manageableProject(ctx: OpContext<AgentPrincipal>, slug: string): Promise<{ project: Project; role: ProjectRole | null }> {
  const project = await lockProject(ctx.em, { slug });
  const visible = await findVisibleProject(ctx.em, slug, ctx.principal);
  if (!visible) throw notFound('project');
  if (!canManageMembers(ctx.principal.userRole, visible.role))
    throw forbidden('only the project owner, a project lead, an admin or a super admin may manage members', 'permission_denied');
  return { project, role: visible.role };
}

const actorOf = (p: AgentPrincipal) => ({ userId: p.userId, tokenId: p.tokenId });

export const manageSetProjectMember = defineOperation<SetProjectMemberInput, ProjectMemberResult, AgentPrincipal>({
  name: 'projects.manage_set_member',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: PROJECT_MEMBER_SCOPES,
  idempotent: true,
  input: SetProjectMemberInput,
  writes: true,
  handler: async (input, ctx) => {
    const { project, role } = await manageableProject(ctx, input.slug);
    if (input.role === 'owner' && !canNameOwner(ctx.principal.userRole, role))
      throw forbidden('only the project owner, an admin or a super admin may name a new owner', 'permission_denied');
    return applySetMember(ctx.em, ctx, project, input.email, input.role, actorOf(ctx.principal));
  },
});

export const manageRemoveProjectMember = defineOperation<RemoveProjectMemberInput, ProjectMemberResult, AgentPrincipal>({
  name: 'projects.manage_remove_member',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: PROJECT_MEMBER_SCOPES,
  idempotent: true,
  input: RemoveProjectMemberInput,
  writes: true,
  handler: async (input, ctx) => {
    const { project } = await manageableProject(ctx, input.slug);
    return applyRemoveMember(ctx.em, ctx, project, input.email, actorOf(ctx.principal));
  },
});
