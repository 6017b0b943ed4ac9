// The feedback operations (SPEC C list_feedback, get_feedback, create_feedback, add_feedback_comment),
// for the agent registry in app/operations.ts. Each MCP tool in transports/mcp/tools/feedback wraps one.
import type { Operation } from '../context.js';
import { addFeedbackComment } from './add-feedback-comment.js';
import { createFeedback } from './create-feedback.js';
import { getFeedback } from './get-feedback.js';
import { listFeedback } from './list-feedback.js';

export const FEEDBACK_OPERATIONS: readonly Operation<any, any, any>[] = [listFeedback, getFeedback, createFeedback, addFeedbackComment];
