// Project membership: add or change a member's role, remove a member. The rules live here once;
// two operations use them: the operator operations (CLI, below) and the agent-token operations of
// ProjectService (manage-project-members.ts, which adds who may call).
//  - `owner` is the project's owner column; naming a new owner keeps the previous one as a `lead`.
//  - The owner cannot be removed, nor given another role; name another owner first.
import { LockMode, type EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { PROJECT_ROLES, type ProjectRole } from './project-roles.rules.js';
import { Project, ProjectMember } from './projects.entity.js';
import { PROJECT_SLUG_PATTERN } from './projects.limits.js';
import { USER_LIMITS } from '../users/users.limits.js';

export const PROJECT_AUDIT = {
  memberSet: 'project.member.set',
  memberRemoved: 'project.member.removed',
} as const;

const slug = z.string().regex(PROJECT_SLUG_PATTERN, { error: `must match ${PROJECT_SLUG_PATTERN.source}` });

export const SetProjectMemberInput = z.strictObject({ slug, email: z.email().max(USER_LIMITS.emailMax), role: z.enum(PROJECT_ROLES) });
export const RemoveProjectMemberInput = z.strictObject({ slug, email: z.email().max(USER_LIMITS.emailMax) });
export type SetProjectMemberInput = z.infer<typeof SetProjectMemberInput>;
export type RemoveProjectMemberInput = z.infer<typeof RemoveProjectMemberInput>;

export interface ProjectMemberResult {
  projectId: string;
  userId: string;
  role: string | null;
  changed: boolean;
}

/** Who made the change, for the audit row (null for an operator). */
export interface MembershipActor {
  userId: string;
  tokenId: string;
}

type AuditCtx = Pick<OpContext, 'surface' | 'requestId' | 'clock'>;

/** The membership change itself, in the unit of work of the caller's transaction (the runner flushes): role rules, rows, audit. */
export async function applySetMember(
  em: EntityManager,
  ctx: AuditCtx,
  project: Project,
  email: string,
  role: ProjectRole,
  actor: MembershipActor | null,
): Promise<ProjectMemberResult> {
  const user = await requireUserByEmail(em, email);
  const now = ctx.clock.now();
  const row = await em.findOne(ProjectMember, { projectId: project.id, userId: user.id });
  const before = row?.role ?? null;
  if (role === 'owner' && project.ownerUserId !== user.id) {
    const previous = project.ownerUserId;
    project.ownerUserId = user.id;
    if (previous) {
      const prevRow = await em.findOne(ProjectMember, { projectId: project.id, userId: previous });
      if (prevRow) prevRow.role = 'lead';
      else em.create(ProjectMember, { projectId: project.id, userId: previous, role: 'lead', createdAt: now });
    }
  } else if (role !== 'owner' && project.ownerUserId === user.id) {
    throw new DomainError('conflict', 'this user owns the project; name another owner first', { code: 'owner_role_change' });
  }
  if (row) row.role = role;
  else em.create(ProjectMember, { projectId: project.id, userId: user.id, role, createdAt: now });
  recordAudit(em, ctx, {
    action: PROJECT_AUDIT.memberSet,
    actorUserId: actor?.userId ?? null,
    tokenId: actor?.tokenId ?? null,
    targetType: 'project',
    targetId: project.id,
    summary: { userId: user.id, role, previousRole: before },
  });
  return { projectId: project.id, userId: user.id, role, changed: before !== role };
}

/** Removes the member row (a no-op when absent); the owner cannot be removed. */
export async function applyRemoveMember(
  em: EntityManager,
  ctx: AuditCtx,
  project: Project,
  email: string,
  actor: MembershipActor | null,
): Promise<ProjectMemberResult> {
  const user = await requireUserByEmail(em, email);
  if (project.ownerUserId === user.id) throw new DomainError('conflict', 'the owner cannot be removed; name another owner first', { code: 'owner_removal' });
  const row = await em.findOne(ProjectMember, { projectId: project.id, userId: user.id });
  if (row) {
    em.remove(row);
    recordAudit(em, ctx, {
      action: PROJECT_AUDIT.memberRemoved,
      actorUserId: actor?.userId ?? null,
      tokenId: actor?.tokenId ?? null,
      targetType: 'project',
      targetId: project.id,
      summary: { userId: user.id, previousRole: row.role },
    });
  }
  return { projectId: project.id, userId: user.id, role: null, changed: row !== null };
}

/**
 * The project row, locked for the rest of the transaction: concurrent membership changes of one
 * project run one after the other (no lost owner swap, no duplicate member row).
 */
export async function lockProject(em: EntityManager, where: { slug: string } | { id: string }): Promise<Project> {
  const project = await em.findOne(Project, where, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!project) throw notFound('project');
  return project;
}

export const setProjectMember = defineOperation<SetProjectMemberInput, ProjectMemberResult>({
  name: 'projects.set_member',
  auth: { kind: 'system' },
  budget: null,
  idempotent: true,
  input: SetProjectMemberInput,
  writes: true,
  handler: async (input, ctx) => applySetMember(ctx.em, ctx, await lockProject(ctx.em, { slug: input.slug }), input.email, input.role, null),
});

export const removeProjectMember = defineOperation<RemoveProjectMemberInput, ProjectMemberResult>({
  name: 'projects.remove_member',
  auth: { kind: 'system' },
  budget: null,
  idempotent: true,
  input: RemoveProjectMemberInput,
  writes: true,
  handler: async (input, ctx) => applyRemoveMember(ctx.em, ctx, await lockProject(ctx.em, { slug: input.slug }), input.email, null),
});
