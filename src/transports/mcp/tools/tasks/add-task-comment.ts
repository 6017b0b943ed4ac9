import { addTaskComment, AddTaskCommentOutput } from '../../../../domain/tasks/add-task-comment.js';
import type { ToolDefinition } from '../tool.js';

export const addTaskCommentTool: ToolDefinition = {
  name: 'add_task_comment',
  title: 'Add task comment',
  description: 'Adds a comment (body, at most 8000 characters) to a task you can see; taskId is the task id (a code is accepted too). Returns {commentId}.',
  operation: addTaskComment,
  output: AddTaskCommentOutput,
  readOnly: false,
  idempotent: false,
};
