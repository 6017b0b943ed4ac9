import { listFeedback, ListFeedbackOutput } from '../../../../domain/feedback/list-feedback.js';
import type { ToolDefinition } from '../tool.js';
import { FEEDBACK_LIMITS } from '../../../../domain/feedback/feedback.limits.js';

export const listFeedbackTool: ToolDefinition = {
  name: 'list_feedback',
  title: 'List feedback',
  description:
    'Feedback you can see, newest first: {count, items[{feedback_id, title, status, project_slug, triage, is_anonymous, author, is_mine, comment_count, created_at, updated_at, delete_after, url}]}. ' +
    'You see your own feedback and the feedback of projects you belong to; admins, super admins and coordinators see every project and the triage pool. Anonymous feedback shows author null to everyone but its author. ' +
    `Filters: project_slug, triage (true: only the triage pool, false: only project feedback), mine, status (open, acknowledged, resolved, closed); limit 1-${FEEDBACK_LIMITS.listMax} (default ${FEEDBACK_LIMITS.listDefault}).`,
  operation: listFeedback,
  output: ListFeedbackOutput,
  readOnly: true,
};
