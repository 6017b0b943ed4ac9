import { createFeedback, CreateFeedbackOutput } from '../../../../domain/feedback/create-feedback.js';
import type { ToolDefinition } from '../tool.js';
import { FEEDBACK_LIMITS } from '../../../../domain/feedback/feedback.limits.js';

export const createFeedbackTool: ToolDefinition = {
  name: 'create_feedback',
  title: 'Create feedback',
  description:
    `Files feedback: title (1-${FEEDBACK_LIMITS.titleMax}), body (1-${FEEDBACK_LIMITS.bodyMax} characters; longer is rejected, never truncated), project_slug?, is_anonymous? (default false: hides you as author from everyone else), ` +
    `auto_delete_after? (ISO-8601 duration PT${FEEDBACK_LIMITS.autoDeleteMinHours}H..P${FEEDBACK_LIMITS.autoDeleteMaxDays}D, e.g. P30D, P2W, PT12H; the feedback is deleted then). Without project_slug, or with one you cannot see, it goes to the triage pool. ` +
    'Returns {feedback_id, url, project_slug, triage, triage_reason, is_anonymous, status, delete_after}. Errors are structured {error: {type, title, detail, field}}.',
  operation: createFeedback,
  output: CreateFeedbackOutput,
  errorForm: 'structured',
  readOnly: false,
  idempotent: false,
};
