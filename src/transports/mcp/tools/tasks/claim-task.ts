import { claimTask, ClaimTaskOutput } from '../../../../domain/tasks/claim-task.js';
import type { ToolDefinition } from '../tool.js';

export const claimTaskTool: ToolDefinition = {
  name: 'claim_task',
  title: 'Claim task',
  description:
    'Takes an unassigned open task of kind issue (code or task_id) for yourself: {task_id, code, status, assignee, url}. For project members, admins and coordinators. ' +
    'The creator and the project owner and leads are notified. Claiming a task you already hold changes nothing.',
  operation: claimTask,
  output: ClaimTaskOutput,
  readOnly: false,
  idempotent: true,
};
