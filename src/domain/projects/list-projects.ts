// `list_projects` (SPEC C read tools, scope read:meta): the projects the caller belongs to, with
// the caller's role in each; admins, super admins and coordinators see every active project
// (role null where they are not in it). Filtered in SQL, never after loading.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { PROJECT_ROLES } from './project-roles.rules.js';
import { projectUrl } from './project-urls.js';
import { listVisibleProjects } from './projects.repository.js';

export const ListProjectsInput = z.strictObject({});

export const ProjectListItem = z.object({
  id: z.uuid(),
  slug: z.string(),
  name: z.string(),
  /** The caller's role in the project; null when an org-wide role shows a project they are not in. */
  role: z.enum(PROJECT_ROLES).nullable(),
  url: z.string(),
});
export const ListProjectsOutput = z.object({ items: z.array(ProjectListItem) });
export type ListProjectsResult = z.infer<typeof ListProjectsOutput>;

export const listProjects = defineOperation<z.infer<typeof ListProjectsInput>, ListProjectsResult, AgentPrincipal>({
  name: 'projects.list',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:meta'],
  idempotent: false,
  input: ListProjectsInput,
  handler: async (_input, ctx) => {
    const rows = await listVisibleProjects(ctx.em, ctx.principal);
    return { items: rows.map((p) => ({ id: p.id, slug: p.slug, name: p.name, role: p.role, url: projectUrl(ctx.config, p.slug) })) };
  },
});
