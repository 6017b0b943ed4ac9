import { listTasks, ListTasksOutput } from '../../../../domain/tasks/list-tasks.js';
import type { ToolDefinition } from '../tool.js';
import { TASK_LIMITS } from '../../../../domain/tasks/tasks.limits.js';

export const listTasksTool: ToolDefinition = {
  name: 'list_tasks',
  title: 'List tasks',
  description:
    'Published tasks in projects you can see (your projects; admins, super admins and coordinators see all), newest first: {items[{task_id, code, title, kind, priority, status, project_slug, assignee, due_date, parent_task_code, created_at, updated_at, url}]}. ' +
    `Filters: assignee ("me" or a user id), project (slug), status (todo, in_progress, review, done, cancelled), priority (low, medium, high, urgent); limit 1-${TASK_LIMITS.listMax} (default ${TASK_LIMITS.listDefault}).`,
  operation: listTasks,
  output: ListTasksOutput,
  readOnly: true,
};
