// `list_project_repository_commits` (SPEC C read tools, scope read:projects): commits received by
// the push webhooks of a project's repositories (see receive-repository-push.ts), newest first by
// commit time. `repo_id` narrows to one repository of that project (another project's id is
// NOT_FOUND); `branch` to commits pushed to that branch (`refs/heads/x` means `x`). Commits of an
// unbound repository stay listed. `branch_filter` echoes the branch, or null.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { requireVisibleProject } from './repository-access.js';
import { findRepositoryById, isoOf, listCommits } from './repositories.repository.js';
import { REPO_LIMITS, shortSha } from './repositories.rules.js';
import { branchField, CommitItem, projectSlugField } from './repositories.schemas.js';

export const ListProjectRepositoryCommitsInput = z.strictObject({
  project_slug: projectSlugField,
  repo_id: z.uuid({ error: 'must be a repository id (UUID) from list_project_repositories' }).optional(),
  branch: branchField.optional(),
  limit: z.number().int().min(1).max(REPO_LIMITS.commitsMax).default(REPO_LIMITS.commitsDefault),
});

export const ListProjectRepositoryCommitsOutput = z.object({
  project_slug: z.string(),
  count: z.number().int().min(0),
  branch_filter: z.string().nullable(),
  commits: z.array(CommitItem),
});
export type ListProjectRepositoryCommitsResult = z.infer<typeof ListProjectRepositoryCommitsOutput>;

export const listProjectRepositoryCommitsOp = defineOperation<
  z.infer<typeof ListProjectRepositoryCommitsInput>,
  ListProjectRepositoryCommitsResult,
  AgentPrincipal
>({
  name: 'repositories.list_commits',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:projects'],
  idempotent: false,
  input: ListProjectRepositoryCommitsInput,
  handler: async (input, ctx) => {
    const project = await requireVisibleProject(ctx.em, ctx.principal, input.project_slug);
    const repoId = input.repo_id?.toLowerCase();
    if (repoId !== undefined) {
      const repo = await findRepositoryById(ctx.em, repoId);
      if (!repo || repo.project_id !== project.id) throw notFound('repository');
    }
    const rows = await listCommits(ctx.em, { projectId: project.id, repositoryId: repoId, branch: input.branch, limit: input.limit });
    const commits = rows.map((r) => ({
      repo_full_name: r.full_name,
      provider: r.provider,
      short_sha: shortSha(r.sha),
      title: r.title,
      url: r.url,
      actor: r.author_name || r.author_email,
      occurred_at: isoOf(r.occurred_at),
    }));
    return { project_slug: project.slug, count: commits.length, branch_filter: input.branch ?? null, commits };
  },
});
