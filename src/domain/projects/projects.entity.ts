import { defineEntity, p } from '@mikro-orm/core';

export const ProjectSchema = defineEntity({
  name: 'Project',
  tableName: 'projects',
  properties: {
    id: p.uuid().primary(),
    slug: p.string().length(80).unique(),
    name: p.string().length(200),
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
    role: p.string().length(20),
    createdAt: p.datetime(),
  },
});
export class ProjectMember extends ProjectMemberSchema.class {}
ProjectMemberSchema.setClass(ProjectMember);
