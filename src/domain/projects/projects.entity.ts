import { defineEntity, p } from '@mikro-orm/core';
import { PROJECT_COLUMNS, PROJECT_LIMITS } from './projects.limits.js';

export const ProjectSchema = defineEntity({
  name: 'Project',
  tableName: 'projects',
  properties: {
    id: p.uuid().primary(),
    slug: p.string().length(PROJECT_LIMITS.slugMax).unique(),
    name: p.string().length(PROJECT_LIMITS.nameMax),
    ownerUserId: p.uuid().nullable(),
    createdAt: p.datetime(),
    archivedAt: p.datetime().nullable(),
  },
});
export class Project extends ProjectSchema.class {}
ProjectSchema.setClass(Project);

/** Membership with a role: `owner`, `lead`, `tech_lead` or `member`. */
export const ProjectMemberSchema = defineEntity({
  name: 'ProjectMember',
  tableName: 'project_members',
  properties: {
    projectId: p.uuid().primary(),
    userId: p.uuid().primary(),
    role: p.string().length(PROJECT_COLUMNS.role),
    createdAt: p.datetime(),
  },
});
export class ProjectMember extends ProjectMemberSchema.class {}
ProjectMemberSchema.setClass(ProjectMember);
