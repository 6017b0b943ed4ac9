// Operator operations on project membership (CLI): add or change a member's role, remove a member.
// Connect RPCs for membership are a later decision; these keep the same rules in one place.
//  - `owner` is the project's owner column; naming a new owner keeps the previous one as a `lead`.
//  - The owner cannot be removed; name another owner first.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { PROJECT_ROLES } from './project-roles.rules.js';
import { Project, ProjectMember } from './projects.entity.js';

export const PROJECT_AUDIT = {
  memberSet: 'project.member.set',
  memberRemoved: 'project.member.removed',
} as const;

const slug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,79}$/, { error: 'must match ^[a-z0-9][a-z0-9-]{0,79}$' });

export const SetProjectMemberInput = z.strictObject({ slug, email: z.email().max(120), role: z.enum(PROJECT_ROLES) });
export const RemoveProjectMemberInput = z.strictObject({ slug, email: z.email().max(120) });

export interface ProjectMemberResult {
  projectId: string;
  userId: string;
  role: string | null;
  changed: boolean;
}

export const setProjectMember = defineOperation<z.infer<typeof SetProjectMemberInput>, ProjectMemberResult>({
  name: 'projects.set_member',
  auth: { kind: 'system' },
  rateLimited: false,
  idempotent: true,
  input: SetProjectMemberInput,
  handler: async (input, ctx) =>
    ctx.em.transactional(async (em) => {
      const project = await em.findOne(Project, { slug: input.slug });
      if (!project) throw notFound('project');
      const user = await requireUserByEmail(em, input.email);
      const now = ctx.clock.now();
      const row = await em.findOne(ProjectMember, { projectId: project.id, userId: user.id });
      const before = row?.role ?? null;
      if (input.role === 'owner' && project.ownerUserId !== user.id) {
        const previous = project.ownerUserId;
        project.ownerUserId = user.id;
        if (previous) {
          const prevRow = await em.findOne(ProjectMember, { projectId: project.id, userId: previous });
          if (prevRow) prevRow.role = 'lead';
          else em.create(ProjectMember, { projectId: project.id, userId: previous, role: 'lead', createdAt: now });
        }
      } else if (input.role !== 'owner' && project.ownerUserId === user.id) {
        throw new DomainError('conflict', 'this user owns the project; name another owner first', { code: 'owner_role_change' });
      }
      if (row) row.role = input.role;
      else em.create(ProjectMember, { projectId: project.id, userId: user.id, role: input.role, createdAt: now });
      recordAudit(em, ctx, { action: PROJECT_AUDIT.memberSet, targetType: 'project', targetId: project.id, summary: { userId: user.id, role: input.role, previousRole: before } });
      await em.flush();
      return { projectId: project.id, userId: user.id, role: input.role, changed: before !== input.role };
    }),
});

export const removeProjectMember = defineOperation<z.infer<typeof RemoveProjectMemberInput>, ProjectMemberResult>({
  name: 'projects.remove_member',
  auth: { kind: 'system' },
  rateLimited: false,
  idempotent: true,
  input: RemoveProjectMemberInput,
  handler: async (input, ctx) =>
    ctx.em.transactional(async (em) => {
      const project = await em.findOne(Project, { slug: input.slug });
      if (!project) throw notFound('project');
      const user = await requireUserByEmail(em, input.email);
      if (project.ownerUserId === user.id) throw new DomainError('conflict', 'the owner cannot be removed; name another owner first', { code: 'owner_removal' });
      const row = await em.findOne(ProjectMember, { projectId: project.id, userId: user.id });
      if (row) {
        em.remove(row);
        recordAudit(em, ctx, { action: PROJECT_AUDIT.memberRemoved, targetType: 'project', targetId: project.id, summary: { userId: user.id, previousRole: row.role } });
      }
      await em.flush();
      return { projectId: project.id, userId: user.id, role: null, changed: row !== null };
    }),
});
