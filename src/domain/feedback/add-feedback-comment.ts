// `add_feedback_comment` (SPEC C write tools; scope write:feedback; structured errors): anyone
// who can see the feedback may comment (feedback.rules.ts visibility); anything else is a
// structured not_found on feedbackId, exactly like an unknown id. body 1-FEEDBACK_LIMITS.commentMax characters (longer:
// structured validation_failed, title body_too_long). `client_message_id` makes a retry safe: the
// same id from the same author on the same feedback returns the first comment's id
// (`deduplicated: true`, nothing written); the same id with a different body is a structured
// conflict (title client_message_id_reused).
import { z } from 'zod';
import { recordToolAudit } from '../audit/tool-audit.js';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { FEEDBACK_AUDIT } from './feedback.audit.js';
import { assertBodyLength, feedbackNotFound } from './feedback-errors.js';
import { findVisibleFeedback, insertCommentOnce, touchFeedback } from './feedback.repository.js';
import { FEEDBACK_LIMITS } from './feedback.limits.js';

export const AddFeedbackCommentInput = z.strictObject({
  feedbackId: z.uuid({ error: 'must be a feedback id (UUID)' }),
  /** At most FEEDBACK_LIMITS.commentMax characters (checked by the tool: a structured validation_failed, nothing stored). */
  body: z
    .string()
    .refine((s) => s.trim().length > 0, { error: 'must not be empty', params: { code: 'required' } })
    .meta({ maxLength: FEEDBACK_LIMITS.commentMax }),
  client_message_id: z.string().trim().min(1).max(FEEDBACK_LIMITS.clientMessageIdMax).optional(),
});
export type AddFeedbackCommentInput = z.infer<typeof AddFeedbackCommentInput>;

export const AddFeedbackCommentOutput = z.object({
  commentId: z.uuid(),
  /** true when client_message_id named an earlier comment: nothing new was written. */
  deduplicated: z.boolean(),
});
export type AddFeedbackCommentResult = z.infer<typeof AddFeedbackCommentOutput>;

export const addFeedbackComment = defineOperation<AddFeedbackCommentInput, AddFeedbackCommentResult, AgentPrincipal>({
  name: 'feedback.add_comment',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:feedback'],
  idempotent: true,
  input: AddFeedbackCommentInput,
  writes: true,
  handler: async (input, ctx) => {
    assertBodyLength(input.body, FEEDBACK_LIMITS.commentMax);
    const principal = ctx.principal;
    const { em } = ctx;
    const now = ctx.clock.now();
    // Locked: the auto-delete job cannot remove the feedback under the new comment.
    const feedback = await findVisibleFeedback(em, input.feedbackId.toLowerCase(), principal, now, true);
    if (!feedback) throw feedbackNotFound('feedbackId');
    const c = await insertCommentOnce(em, {
      feedbackId: feedback.id,
      authorUserId: principal.userId,
      body: input.body,
      clientMessageId: input.client_message_id ?? null,
      now,
    });
    if (!c.inserted) {
      if (c.body !== input.body) {
        throw new DomainError('conflict', 'client_message_id was already used for a different comment on this feedback', {
          code: 'client_message_id_reused',
          extra: { field: 'client_message_id' },
        });
      }
      return { commentId: c.id, deduplicated: true };
    }
    await touchFeedback(em, feedback.id, now);
    recordToolAudit(em, ctx, {
      tool: 'add_feedback_comment',
      action: FEEDBACK_AUDIT.commentAdded,
      targetType: 'feedback',
      targetId: feedback.id,
      summary: { commentId: c.id, bodyLength: input.body.length, clientMessageId: input.client_message_id !== undefined },
    });
    return { commentId: c.id, deduplicated: false };
  },
});
