import { listProjectRepositoriesOp, ListProjectRepositoriesOutput } from '../../../../domain/repositories/list-project-repositories.js';
import type { ToolDefinition } from '../tool.js';

export const listProjectRepositoriesTool: ToolDefinition = {
  name: 'list_project_repositories',
  title: 'List project repositories',
  description:
    'Repositories bound to a project you can see: {project_slug, count, repositories[{id, provider, full_name, web_url, ssh_url, default_branch, is_monitored, archived}]}, active first. ' +
    'is_monitored: bound and its push webhook has delivered. Unknown or invisible project: NOT_FOUND. Scope read:projects.',
  operation: listProjectRepositoriesOp,
  output: ListProjectRepositoriesOutput,
  readOnly: true,
};
