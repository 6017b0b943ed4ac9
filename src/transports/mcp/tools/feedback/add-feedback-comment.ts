import { addFeedbackComment, AddFeedbackCommentOutput } from '../../../../domain/feedback/add-feedback-comment.js';
import type { ToolDefinition } from '../tool.js';
import { FEEDBACK_LIMITS } from '../../../../domain/feedback/feedback.limits.js';

export const addFeedbackCommentTool: ToolDefinition = {
  name: 'add_feedback_comment',
  title: 'Add feedback comment',
  description:
    `Adds a comment (body 1-${FEEDBACK_LIMITS.commentMax} characters) to feedback you can see. client_message_id? (1-${FEEDBACK_LIMITS.clientMessageIdMax}) makes retries safe: the same id again returns the first comment ({commentId, deduplicated: true}); ` +
    'reusing it for a different body is a conflict. Returns {commentId, deduplicated}. Errors are structured {error: {type, title, detail, field}}.',
  operation: addFeedbackComment,
  output: AddFeedbackCommentOutput,
  errorForm: 'structured',
  readOnly: false,
  idempotent: true,
};
