import { listProjects, ListProjectsOutput } from '../../../../domain/projects/list-projects.js';
import type { ToolDefinition } from '../tool.js';

export const listProjectsTool: ToolDefinition = {
  name: 'list_projects',
  title: 'List projects',
  description:
    'Projects you belong to, by name: {items[{id, slug, name, role, url}]}; role is your role there (owner, lead, tech_lead, member). Admins, super admins and coordinators see every active project (role null where they are not a member).',
  operation: listProjects,
  output: ListProjectsOutput,
  readOnly: true,
};
