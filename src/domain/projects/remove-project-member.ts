// An operator removes a project member (CLI); the owner cannot be removed.
import { defineOperation } from '../context.js';
import { applyRemoveMember, lockProject, RemoveProjectMemberInput, type ProjectMemberResult } from './project-members.shared.js';

export const removeProjectMember = defineOperation<RemoveProjectMemberInput, ProjectMemberResult>({
  name: 'projects.remove_member',
  auth: { kind: 'system' },
  budget: null,
  idempotent: true,
  input: RemoveProjectMemberInput,
  writes: true,
  handler: async (input, ctx) => applyRemoveMember(ctx.em, ctx, await lockProject(ctx.em, { slug: input.slug }), input.email, null),
});
