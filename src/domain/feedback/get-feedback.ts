// `get_feedback` (SPEC C read tools, scope read:feedback; shape: this service's, agent-protocol.md
// 14): one feedback with its newest 100 comments (oldest first). Absent, past its delete_after, or
// outside the caller's visibility: `NOT_FOUND: feedback not found`, all three alike.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { feedbackNotFound } from './feedback-errors.js';
import { findVisibleFeedback, recentFeedbackComments } from './feedback.repository.js';
import { type FeedbackDetail, toFeedbackDetail } from './feedback.view.js';
import { FEEDBACK_LIMITS } from './feedback.limits.js';

const id = z.uuid({ error: 'must be a feedback id (UUID)' });

/** `feedback_id`; `feedbackId` (add_feedback_comment's spelling) is accepted too. Exactly one. */
export const GetFeedbackInput = z.strictObject({ feedback_id: id.optional(), feedbackId: id.optional() }).superRefine((v, ctx) => {
  if (v.feedback_id === undefined && v.feedbackId === undefined)
    ctx.addIssue({ code: 'custom', path: ['feedback_id'], message: 'feedback_id is required', params: { code: 'required' } });
  if (v.feedback_id !== undefined && v.feedbackId !== undefined && v.feedback_id.toLowerCase() !== v.feedbackId.toLowerCase()) {
    ctx.addIssue({
      code: 'custom',
      path: ['feedbackId'],
      message: 'feedbackId disagrees with feedback_id; send only feedback_id',
      params: { code: 'conflicting_alias' },
    });
  }
});
export type GetFeedbackInput = z.infer<typeof GetFeedbackInput>;

export const getFeedback = defineOperation<GetFeedbackInput, FeedbackDetail, AgentPrincipal>({
  name: 'feedback.get',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:feedback'],
  idempotent: false,
  input: GetFeedbackInput,
  handler: async (input, ctx) => {
    const feedbackId = (input.feedback_id ?? input.feedbackId)!.toLowerCase();
    const f = await findVisibleFeedback(ctx.em, feedbackId, ctx.principal, ctx.clock.now());
    if (!f) throw feedbackNotFound(input.feedback_id !== undefined ? 'feedback_id' : 'feedbackId');
    const comments = await recentFeedbackComments(ctx.em, f.id, FEEDBACK_LIMITS.commentsShown);
    return toFeedbackDetail(ctx.config, ctx.principal.userId, f, comments);
  },
});
