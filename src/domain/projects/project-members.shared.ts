// Project membership rules, shared by the operator operations (set-/remove-project-member.ts, CLI)
// and the agent-token ones of ProjectService (*-by-agent.ts, which add who may call).
//  - `owner` is the project's owner column; naming a new owner keeps the previous one as a `lead`.
//  - The owner cannot be removed, nor given another role; name another owner first.
import { LockMode, type EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import type { OpContext } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError, forbidden, notFound } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { canManageMembers } from './project-membership.rules.js';
import { PROJECT_ROLES, type ProjectRole } from './project-roles.rules.js';
import { Project, ProjectMember } from './projects.entity.js';
import { findVisibleProject } from './projects.repository.js';
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

export const PROJECT_MEMBER_SCOPES = ['write:projects'] as const;

/**
 * The project the caller may manage, locked (see lockProject), with the caller's role read after
 * the lock. Absent, archived and invisible projects are all NOT_FOUND.
 */
export async function manageableProject(ctx: OpContext<AgentPrincipal>, slug: string): Promise<{ project: Project; role: ProjectRole | null }> {
  const project = await lockProject(ctx.em, { slug });
  const visible = await findVisibleProject(ctx.em, slug, ctx.principal);
  if (!visible) throw notFound('project');
  if (!canManageMembers(ctx.principal.userRole, visible.role))
    throw forbidden('only the project owner, a project lead, an admin or a super admin may manage members', 'permission_denied');
  return { project, role: visible.role };
}

export const actorOf = (p: AgentPrincipal) => ({ userId: p.userId, tokenId: p.tokenId });
