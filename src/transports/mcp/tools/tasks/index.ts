// The task, project and daily-update tools (SPEC C; agent token scopes read:tasks, read:meta,
// write:tasks). publish_task_draft is this service's addition: create_task's drafts need a way out.
import type { ToolDefinition } from '../tool.js';
import { addTaskCommentTool } from './add-task-comment.js';
import { claimTaskTool } from './claim-task.js';
import { createTaskTool } from './create-task.js';
import { getOwnerIntakeTemplatesTool } from './get-owner-intake-templates.js';
import { getTaskTool } from './get-task.js';
import { listProjectsTool } from './list-projects.js';
import { listTasksTool } from './list-tasks.js';
import { publishTaskDraftTool } from './publish-task-draft.js';
import { submitDailyUpdateTool } from './submit-daily-update.js';
import { updateTaskStatusTool } from './update-task-status.js';

export const TASK_TOOLS: ToolDefinition[] = [
  listTasksTool,
  getTaskTool,
  listProjectsTool,
  getOwnerIntakeTemplatesTool,
  submitDailyUpdateTool,
  createTaskTool,
  publishTaskDraftTool,
  claimTaskTool,
  updateTaskStatusTool,
  addTaskCommentTool,
];
