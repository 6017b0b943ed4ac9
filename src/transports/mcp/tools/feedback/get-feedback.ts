import { getFeedback } from '../../../../domain/feedback/get-feedback.js';
import { FeedbackDetail } from '../../../../domain/feedback/feedback.view.js';
import type { ToolDefinition } from '../tool.js';
import { FEEDBACK_LIMITS } from '../../../../domain/feedback/feedback.limits.js';

export const getFeedbackTool: ToolDefinition = {
  name: 'get_feedback',
  title: 'Get feedback',
  description:
    'One feedback by feedback_id (feedbackId accepted too): {feedback_id, title, body, status, project_slug, project{slug, name, url}, triage, requested_project_slug, is_anonymous, author, is_mine, comment_count, ' +
    `comments[{comment_id, body, author, by_feedback_author, created_at}] (newest ${FEEDBACK_LIMITS.commentsShown}, oldest first), created_at, updated_at, delete_after, url}. Outside your visibility it is NOT_FOUND, like an unknown id.`,
  operation: getFeedback,
  output: FeedbackDetail,
  readOnly: true,
};
