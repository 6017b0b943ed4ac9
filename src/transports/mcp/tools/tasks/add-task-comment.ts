import { addTaskComment, AddTaskCommentOutput } from '../../../../domain/tasks/add-task-comment.js';
import type { ToolDefinition } from '../tool.js';
import { TASK_LIMITS } from '../../../../domain/tasks/tasks.limits.js';

export const addTaskCommentTool: ToolDefinition = {
  name: 'add_task_comment',
  title: 'Add task comment',
  description: `Adds a comment (body, at most ${TASK_LIMITS.commentMax} characters) to a task you can see; taskId is the task id (a code is accepted too). Returns {commentId}.`,
  operation: addTaskComment,
  output: AddTaskCommentOutput,
  readOnly: false,
  idempotent: false,
};
