// The agent operations behind the task tools (SPEC C: list_tasks, get_task, list_projects,
// get_owner_intake_templates, submit_daily_update, create_task, claim_task, update_task_status,
// add_task_comment, plus publish_task_draft) and the operator operations of the same area, for the
// registries in app/operations.ts.
import type { Operation } from '../context.js';
import { submitDailyUpdate } from '../daily-updates/submit-daily-update.js';
import { listProjects } from '../projects/list-projects.js';
import { removeProjectMember } from '../projects/remove-project-member.js';
import { setProjectMember } from '../projects/set-project-member.js';
import { addTaskComment } from './add-task-comment.js';
import { claimTask } from './claim-task.js';
import { createTask } from './create-task.js';
import { getOwnerIntakeTemplates } from './get-owner-intake-templates.js';
import { getTask } from './get-task.js';
import { listTasks } from './list-tasks.js';
import { publishTaskDraft } from './publish-task-draft.js';
import { setOwnerIntakeTemplates } from './set-owner-intake-templates.js';
import { updateTaskStatus } from './update-task-status.js';

export const TASK_AGENT_OPERATIONS: readonly Operation<any, any, any>[] = [
  listTasks,
  getTask,
  listProjects,
  getOwnerIntakeTemplates,
  submitDailyUpdate,
  createTask,
  publishTaskDraft,
  claimTask,
  updateTaskStatus,
  addTaskComment,
];

export const TASK_OPERATOR_OPERATIONS: readonly Operation<any, any, any>[] = [setProjectMember, removeProjectMember, setOwnerIntakeTemplates];
