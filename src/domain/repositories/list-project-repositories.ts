// `list_project_repositories` (SPEC C read tools, scope read:projects): the repositories bound to
// a project the caller sees, active first, then by name; unbound (archived) ones are listed with
// `archived: true` because their commits stay readable. Never the webhook secret.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { requireVisibleProject } from './repository-access.js';
import { listProjectRepositories, type RepositoryRow } from './repositories.repository.js';
import { projectSlugField, RepositoryItem } from './repositories.schemas.js';

export const ListProjectRepositoriesInput = z.strictObject({ project_slug: projectSlugField });

export const ListProjectRepositoriesOutput = z.object({
  project_slug: z.string(),
  count: z.number().int().min(0),
  repositories: z.array(RepositoryItem),
});
export type ListProjectRepositoriesResult = z.infer<typeof ListProjectRepositoriesOutput>;

export const repositoryItem = (r: RepositoryRow): z.infer<typeof RepositoryItem> => ({
  id: r.id,
  provider: r.provider,
  full_name: r.full_name,
  web_url: r.web_url,
  ssh_url: r.ssh_url,
  default_branch: r.default_branch,
  is_monitored: r.archived_at === null && r.last_push_at !== null,
  archived: r.archived_at !== null,
});

export const listProjectRepositoriesOp = defineOperation<z.infer<typeof ListProjectRepositoriesInput>, ListProjectRepositoriesResult, AgentPrincipal>({
  name: 'repositories.list',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:projects'],
  idempotent: false,
  input: ListProjectRepositoriesInput,
  handler: async (input, ctx) => {
    const project = await requireVisibleProject(ctx.em, ctx.principal, input.project_slug);
    const repositories = (await listProjectRepositories(ctx.em, project.id)).map(repositoryItem);
    return { project_slug: project.slug, count: repositories.length, repositories };
  },
});
