// The feedback tools (SPEC C; agent token scopes read:feedback, write:feedback; agent-protocol.md
// section 14); each wraps exactly one operation of src/domain/feedback.
import type { ToolDefinition } from '../tool.js';
import { addFeedbackCommentTool } from './add-feedback-comment.js';
import { createFeedbackTool } from './create-feedback.js';
import { getFeedbackTool } from './get-feedback.js';
import { listFeedbackTool } from './list-feedback.js';

export const FEEDBACK_TOOLS: ToolDefinition[] = [listFeedbackTool, getFeedbackTool, createFeedbackTool, addFeedbackCommentTool];
