// An operator adds a project member or changes their role (CLI); the rules are in project-members.shared.ts.
import { defineOperation } from '../context.js';
import { applySetMember, lockProject, SetProjectMemberInput, type ProjectMemberResult } from './project-members.shared.js';

export const setProjectMember = defineOperation<SetProjectMemberInput, ProjectMemberResult>({
  name: 'projects.set_member',
  auth: { kind: 'system' },
  budget: null,
  idempotent: true,
  input: SetProjectMemberInput,
  writes: true,
  handler: async (input, ctx) => applySetMember(ctx.em, ctx, await lockProject(ctx.em, { slug: input.slug }), input.email, input.role, null),
});
