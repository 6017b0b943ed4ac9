// Who may manage a project's members through an agent token (ProjectService SetProjectMember /
// RemoveProjectMember). Pure; the membership rules themselves are in project-members.shared.ts.
//  - organisation admins and super admins: any project;
//  - the project's owner and its leads: their project;
//  - naming a new owner (a transfer of ownership) is for the owner, admins and super admins only.
// Tech leads, members and coordinators (who see every project) may not manage members.
import { isOrgAdmin, type ProjectRole } from './project-roles.rules.js';

export const canManageMembers = (userRole: string, projectRole: ProjectRole | null): boolean =>
  isOrgAdmin(userRole) || projectRole === 'owner' || projectRole === 'lead';

export const canNameOwner = (userRole: string, projectRole: ProjectRole | null): boolean => isOrgAdmin(userRole) || projectRole === 'owner';
