import { createTask, CreateTaskOutput } from '../../../../domain/tasks/create-task.js';
import type { ToolDefinition } from '../tool.js';
import { TASK_LIMITS } from '../../../../domain/tasks/tasks.limits.js';

export const createTaskTool: ToolDefinition = {
  name: 'create_task',
  title: 'Create task',
  description:
    'Creates a task in project_slug (required unless as_draft) and returns {task_id, code, url, assignee, priority, cc[], reviewers[{id, email}], draft, status}. ' +
    `kind: issue (anyone in the project may claim it), task (default), bug, chore; priority: low, medium (default), high, urgent; due_date YYYY-MM-DD; parent_task_code nests it (same project, at most ${TASK_LIMITS.depthMax} levels). ` +
    `assignee_user_id wins over assignee_email; assigning someone else needs a super admin, the project owner or a project tech lead. reviewer_user_ids at most ${TASK_LIMITS.reviewersMax}; unknown, inactive or self reviewer/cc entries are dropped. ` +
    'as_draft saves a private draft without a code (publish it with publish_task_draft). Errors are structured {error: {type, title, detail, field}}, except a missing project_slug: {error: "project_slug is required"}.',
  operation: createTask,
  output: CreateTaskOutput,
  errorForm: 'structured',
  readOnly: false,
  idempotent: false,
};
