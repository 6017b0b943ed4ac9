import { getTask } from '../../../../domain/tasks/get-task.js';
import { TaskDetail } from '../../../../domain/tasks/task.view.js';
import type { ToolDefinition } from '../tool.js';
import { TASK_LIMITS } from '../../../../domain/tasks/tasks.limits.js';

export const getTaskTool: ToolDefinition = {
  name: 'get_task',
  title: 'Get task',
  description:
    `One task by code (e.g. OPS-12) or task_id (uuid); task_code is a deprecated alias of code. Returns the task with assignee(s), reviewers, cc, status_history and the newest ${TASK_LIMITS.commentsShown} comments. ` +
    'A task outside your projects answers NOT_FOUND.',
  operation: getTask,
  output: TaskDetail,
  readOnly: true,
};
