// ProjectService RemoveProjectMember for an agent-token caller (scope write:projects): the operator
// operation's rules plus who may call and project isolation, as set-project-member-by-agent.ts.
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import {
  actorOf,
  applyRemoveMember,
  manageableProject,
  PROJECT_MEMBER_SCOPES,
  RemoveProjectMemberInput,
  type ProjectMemberResult,
} from './project-members.shared.js';

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
