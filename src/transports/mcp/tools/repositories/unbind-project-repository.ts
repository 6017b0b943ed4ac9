import { unbindProjectRepositoryOp, UnbindProjectRepositoryOutput } from '../../../../domain/repositories/unbind-project-repository.js';
import type { ToolDefinition } from '../tool.js';

export const unbindProjectRepositoryTool: ToolDefinition = {
  name: 'unbind_project_repository',
  title: 'Unbind project repository',
  description:
    'Unbinds (archives) a repository from a project: {repo_id, project_slug, archived: true}. Its webhook stops accepting pushes; its commits stay listed; binding it again restores it. ' +
    'Idempotent. Same permission and scope as bind_project_repository.',
  operation: unbindProjectRepositoryOp,
  output: UnbindProjectRepositoryOutput,
  readOnly: false,
  destructive: true,
  idempotent: true,
};
