// Project roles and who sees what (SPEC "What the service does" 8: project isolation is enforced
// on the server). Pure functions; the SQL in projects.repository.ts applies the same rules.

export const PROJECT_ROLES = ['owner', 'lead', 'tech_lead', 'member'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];

/** Higher wins when one user holds several (the project's owner column beats a member row). */
const RANK: Record<ProjectRole, number> = { owner: 4, lead: 3, tech_lead: 2, member: 1 };

export function higherRole(a: ProjectRole | null, b: ProjectRole | null): ProjectRole | null {
  if (a === null) return b;
  if (b === null) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

/**
 * The user's role in a project: `owner` when the project names them as owner, otherwise their
 * member row's role, otherwise null.
 */
export function effectiveProjectRole(userId: string, project: { ownerUserId: string | null }, memberRole: string | null): ProjectRole | null {
  const fromRow = (PROJECT_ROLES as readonly string[]).includes(memberRole ?? '') ? (memberRole as ProjectRole) : null;
  return higherRole(project.ownerUserId === userId ? 'owner' : null, fromRow);
}

/**
 * Organisation roles that see every project (and so every project's tasks): admins, super admins,
 * and coordinators (claim_task names coordinators next to admins: a coordinator picks up issues
 * in any project, so they must be able to find them).
 */
export const ORG_WIDE_ROLES: readonly string[] = ['admin', 'super_admin', 'coordinator'];
export const canSeeAllProjects = (userRole: string): boolean => ORG_WIDE_ROLES.includes(userRole);

/** Organisation admins (status overrides on tasks). */
export const TASK_ADMIN_ROLES: readonly string[] = ['admin', 'super_admin'];
export const isOrgAdmin = (userRole: string): boolean => TASK_ADMIN_ROLES.includes(userRole);

/** Does this user see the project at all? */
export const canSeeProject = (userRole: string, projectRole: ProjectRole | null): boolean => projectRole !== null || canSeeAllProjects(userRole);

/**
 * create_task: assigning to someone other than the caller needs a super admin, the project owner
 * or a project tech lead (SPEC C create_task). Plain admins and leads are not in that list.
 */
export const canAssignOthers = (userRole: string, projectRole: ProjectRole | null): boolean =>
  userRole === 'super_admin' || projectRole === 'owner' || projectRole === 'tech_lead';
