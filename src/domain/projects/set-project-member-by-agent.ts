// ProjectService SetProjectMember for an agent-token caller (scope write:projects): the operator
// operation's rules (project-members.shared.ts) plus who may call (project-membership.rules.ts) and
// project isolation: a project the caller cannot see is NOT_FOUND, like an absent or archived one.
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { forbidden } from '../errors.js';
import { canNameOwner } from './project-membership.rules.js';
import {
  actorOf,
  applySetMember,
  manageableProject,
  PROJECT_MEMBER_SCOPES,
  SetProjectMemberInput,
  type ProjectMemberResult,
} from './project-members.shared.js';

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
