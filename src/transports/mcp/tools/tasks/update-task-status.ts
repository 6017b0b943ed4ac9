import { describeTransitions } from '../../../../domain/tasks/tasks.rules.js';
import { updateTaskStatus, UpdateTaskStatusOutput } from '../../../../domain/tasks/update-task-status.js';
import type { ToolDefinition } from '../tool.js';

export const updateTaskStatusTool: ToolDefinition = {
  name: 'update_task_status',
  title: 'Update task status',
  description:
    'Moves a task (code or task_id; task_code is a deprecated alias) to status, optionally with a progress_note that becomes a comment: {task_id, code, status, new_status, comment_id} (new_status is a deprecated duplicate of status). ' +
    `Allowed transitions: ${describeTransitions().join('; ')}.`,
  operation: updateTaskStatus,
  output: UpdateTaskStatusOutput,
  readOnly: false,
  idempotent: false,
};
