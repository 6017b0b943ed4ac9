// `list_feedback` (SPEC C read tools, scope read:feedback; shape: this service's, agent-protocol.md
// 14): the feedback the caller may see, newest first. Visibility and every filter run in SQL
// (feedback.repository.ts visibleFeedbackSql): own feedback; project feedback of active projects
// the caller belongs to; admins, super admins and coordinators see every project's feedback and
// the triage pool. An unknown or invisible project_slug simply matches nothing.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { listVisibleFeedback } from './feedback.repository.js';
import { FEEDBACK_STATUSES } from './feedback.rules.js';
import { FeedbackListItem, toFeedbackListItem } from './feedback.view.js';
import { PROJECT_LIMITS } from '../projects/projects.limits.js';
import { FEEDBACK_LIMITS } from './feedback.limits.js';

export const ListFeedbackInput = z.strictObject({
  project_slug: z.string().trim().min(1).max(PROJECT_LIMITS.slugMax).optional(),
  /** true: only the triage pool; false: only feedback filed under a project. */
  triage: z.boolean().optional(),
  /** true: only feedback the caller wrote (anonymous included). */
  mine: z.boolean().optional(),
  status: z.enum(FEEDBACK_STATUSES).optional(),
  limit: z.number().int().min(1).max(FEEDBACK_LIMITS.listMax).default(FEEDBACK_LIMITS.listDefault),
});
export type ListFeedbackInput = z.infer<typeof ListFeedbackInput>;

export const ListFeedbackOutput = z.object({ count: z.number().int(), items: z.array(FeedbackListItem) });
export type ListFeedbackResult = z.infer<typeof ListFeedbackOutput>;

export const listFeedback = defineOperation<ListFeedbackInput, ListFeedbackResult, AgentPrincipal>({
  name: 'feedback.list',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:feedback'],
  idempotent: false,
  input: ListFeedbackInput,
  handler: async (input, ctx) => {
    const rows = await listVisibleFeedback(ctx.em, ctx.principal, ctx.clock.now(), {
      projectSlug: input.project_slug,
      triage: input.triage,
      mine: input.mine,
      status: input.status,
      limit: input.limit,
    });
    const items = rows.map((r) => toFeedbackListItem(ctx.config, ctx.principal.userId, r));
    return { count: items.length, items };
  },
});
