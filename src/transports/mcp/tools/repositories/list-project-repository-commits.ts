import { listProjectRepositoryCommitsOp, ListProjectRepositoryCommitsOutput } from '../../../../domain/repositories/list-project-repository-commits.js';
import type { ToolDefinition } from '../tool.js';
import { REPO_LIMITS } from '../../../../domain/repositories/repositories.limits.js';

export const listProjectRepositoryCommitsTool: ToolDefinition = {
  name: 'list_project_repository_commits',
  title: 'List project repository commits',
  description:
    "Commits pushed to a project's repositories (received through their push webhooks), newest first: {project_slug, count, branch_filter, commits[{repo_full_name, provider, short_sha, title, url, actor, occurred_at}]}. " +
    `Filters: repo_id (from list_project_repositories), branch; limit 1-${REPO_LIMITS.commitsMax} (default ${REPO_LIMITS.commitsDefault}). Scope read:projects.`,
  operation: listProjectRepositoryCommitsOp,
  output: ListProjectRepositoryCommitsOutput,
  readOnly: true,
};
