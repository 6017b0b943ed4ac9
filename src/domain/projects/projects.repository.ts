import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { canSeeAllProjects, effectiveProjectRole, ORG_WIDE_ROLES, type ProjectRole } from './project-roles.rules.js';
import { pgArray } from '../sql-hints.js';

export async function findProjectForMember(em: EntityManager, slug: string, userId: string): Promise<{ id: string; isMember: boolean } | undefined> {
  const rows = await run<{ id: string; is_member: boolean }>(
    em,
    `select p.id, (m.user_id is not null or p.owner_user_id = ?) as is_member
       from projects p left join project_members m on m.project_id = p.id and m.user_id = ?
      where p.slug = ? and p.archived_at is null`,
    [userId, userId, slug],
  );
  const r = rows[0];
  return r ? { id: r.id, isMember: r.is_member } : undefined;
}

// ---- Roles and visibility (agent tools list_projects and the task tools) ----

/** Who is asking: the user and their organisation role. */
export interface Viewer {
  userId: string;
  userRole: string;
}

export interface ProjectForViewer {
  id: string;
  slug: string;
  name: string;
  ownerUserId: string | null;
  /** The viewer's own role in the project (null for an org-wide viewer who is not in it). */
  role: ProjectRole | null;
}

interface ProjectRow {
  id: string;
  slug: string;
  name: string;
  owner_user_id: string | null;
  member_role: string | null;
}

const toProject = (viewer: Viewer, r: ProjectRow): ProjectForViewer => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  ownerUserId: r.owner_user_id,
  role: effectiveProjectRole(viewer.userId, { ownerUserId: r.owner_user_id }, r.member_role),
});

/**
 * An active project the viewer may see, by slug; undefined when it does not exist, is archived,
 * or is outside the viewer's visibility (callers answer all three the same way: not found).
 */
export async function findVisibleProject(em: EntityManager, slug: string, viewer: Viewer): Promise<ProjectForViewer | undefined> {
  const rows = await run<ProjectRow>(
    em,
    `select p.id, p.slug, p.name, p.owner_user_id, m.role as member_role
       from projects p left join project_members m on m.project_id = p.id and m.user_id = ?
      where p.slug = ? and p.archived_at is null`,
    [viewer.userId, slug.toLowerCase()],
  );
  const r = rows[0];
  if (!r) return undefined;
  const p = toProject(viewer, r);
  return p.role !== null || canSeeAllProjects(viewer.userRole) ? p : undefined;
}

/** A project by id with the viewer's role (no visibility filter: callers decide). */
export async function findProjectWithRole(em: EntityManager, projectId: string, viewer: Viewer): Promise<ProjectForViewer | undefined> {
  const rows = await run<ProjectRow>(
    em,
    `select p.id, p.slug, p.name, p.owner_user_id, m.role as member_role
       from projects p left join project_members m on m.project_id = p.id and m.user_id = ?
      where p.id = ? and p.archived_at is null`,
    [viewer.userId, projectId],
  );
  return rows[0] ? toProject(viewer, rows[0]) : undefined;
}

/** Every active project the viewer may see, with their role, by name. Filtered in SQL. */
export async function listVisibleProjects(em: EntityManager, viewer: Viewer): Promise<ProjectForViewer[]> {
  const all = canSeeAllProjects(viewer.userRole);
  const rows = await run<ProjectRow>(
    em,
    `select p.id, p.slug, p.name, p.owner_user_id, m.role as member_role
       from projects p left join project_members m on m.project_id = p.id and m.user_id = ?
      where p.archived_at is null${all ? '' : ' and (m.user_id is not null or p.owner_user_id = ?)'}
      order by p.name, p.slug`,
    all ? [viewer.userId] : [viewer.userId, viewer.userId],
  );
  return rows.map((r) => toProject(viewer, r));
}

/**
 * Which of `userIds` can see the project: members, its owner, and org-wide roles (admins,
 * super admins, coordinators). Only active users count.
 */
export async function usersWhoSeeProject(em: EntityManager, projectId: string, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await run<{ id: string }>(
    em,
    `select u.id from users u
      where u.id = any(?::uuid[]) and u.status = 'active'
        and (u.role = any(?::text[])
             or exists (select 1 from project_members m where m.project_id = ? and m.user_id = u.id)
             or exists (select 1 from projects p where p.id = ? and p.owner_user_id = u.id))`,
    [pgArray(userIds), pgArray(ORG_WIDE_ROLES), projectId, projectId],
  );
  return new Set(rows.map((r) => r.id));
}

/** Active users holding one of `roles` in the project (the owner column counts as `owner`). */
export async function projectUsersWithRoles(em: EntityManager, projectId: string, roles: readonly ProjectRole[]): Promise<string[]> {
  const rows = await run<{ user_id: string }>(
    em,
    `select m.user_id from project_members m join users u on u.id = m.user_id
      where m.project_id = ? and m.role = any(?::text[]) and u.status = 'active'
     union
     select p.owner_user_id from projects p join users u on u.id = p.owner_user_id
      where p.id = ? and u.status = 'active' and 'owner' = any(?::text[])`,
    [projectId, pgArray(roles), projectId, pgArray(roles)],
  );
  return [...new Set(rows.map((r) => r.user_id))];
}
