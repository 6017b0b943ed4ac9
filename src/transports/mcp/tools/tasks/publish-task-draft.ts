import { CreateTaskOutput } from '../../../../domain/tasks/create-task.js';
import { publishTaskDraft } from '../../../../domain/tasks/publish-task-draft.js';
import type { ToolDefinition } from '../tool.js';

export const publishTaskDraftTool: ToolDefinition = {
  name: 'publish_task_draft',
  title: 'Publish task draft',
  description:
    'Publishes your draft (task_id) into its project, or into project_slug when the draft has none; the task gets its code and starts in todo. ' +
    'The assignee permission, the parent, reviewers and cc are checked again as create_task checks them. Output and structured errors as create_task.',
  operation: publishTaskDraft,
  output: CreateTaskOutput,
  errorForm: 'structured',
  readOnly: false,
  idempotent: false,
};
