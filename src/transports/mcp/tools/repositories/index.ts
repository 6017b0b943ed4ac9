// The repositories tools; each wraps exactly one operation of src/domain/repositories.
import type { ToolDefinition } from '../tool.js';
import { bindProjectRepositoryTool } from './bind-project-repository.js';
import { listProjectRepositoriesTool } from './list-project-repositories.js';
import { listProjectRepositoryCommitsTool } from './list-project-repository-commits.js';
import { unbindProjectRepositoryTool } from './unbind-project-repository.js';

export const REPOSITORY_TOOLS: ToolDefinition[] = [
  listProjectRepositoriesTool,
  listProjectRepositoryCommitsTool,
  bindProjectRepositoryTool,
  unbindProjectRepositoryTool,
];
