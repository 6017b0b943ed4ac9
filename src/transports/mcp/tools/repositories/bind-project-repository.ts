import { bindProjectRepositoryOp, BindProjectRepositoryOutput } from '../../../../domain/repositories/bind-project-repository.js';
import type { ToolDefinition } from '../tool.js';

export const bindProjectRepositoryTool: ToolDefinition = {
  name: 'bind_project_repository',
  title: 'Bind project repository',
  description:
    'Binds a gitone or gitea repository (repo_url: https://host/owner/name, or its ssh address) to a project: {repo_id, project_slug, provider, web_url, full_name, default_branch, created, restored, ssh_url, webhook_url, webhook_secret?}. ' +
    'Binding the same repository again answers created false; binding an unbound one restores it. webhook_secret is returned only when issued: configure it with webhook_url (push events, JSON) in the provider. ' +
    'For super admins, project leads and tech leads, and holders of the code.repo.bind capability. Scope code:repo:bind (or the deprecated admin:projects).',
  operation: bindProjectRepositoryOp,
  output: BindProjectRepositoryOutput,
  readOnly: false,
  idempotent: true,
};
