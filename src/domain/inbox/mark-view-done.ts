// InboxService.MarkAllDone: "Mark all done" under the current view and filters, bounded: one call
// moves at most 1,000 rows (newest first) to Done and says whether more remain, so a large inbox
// is done in several short transactions (the web app calls again while `more`). Scope write:inbox.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { InboxQueryField } from './inbox-query.rules.js';
import type { AgentPrincipal } from '../principal.js';
import { recordAudit } from '../audit/audit.js';
import { SEVERITIES } from '../events/event.limits.js';
import { INBOX_AUDIT } from './inbox.audit.js';
import { INBOX_LIMITS, INBOX_VIEWS } from './inbox.limits.js';
import { markViewDone } from './inbox-view.repository.js';
import { announceChanged } from './triage.shared.js';

export const MarkViewDoneInput = z.strictObject({
  view: z.enum(INBOX_VIEWS).default('inbox'),
  query: InboxQueryField,
  unread_only: z.boolean().optional(),
  severities: z.array(z.enum(SEVERITIES)).max(SEVERITIES.length).optional(),
  event_type: z.string().max(INBOX_LIMITS.eventTypeFilterMax).optional(),
});
export type MarkViewDoneInput = z.infer<typeof MarkViewDoneInput>;

export const markViewDoneOp = defineOperation<MarkViewDoneInput, { updatedCount: number; more: boolean }, AgentPrincipal>({
  name: 'inbox.mark_view_done',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: true,
  input: MarkViewDoneInput,
  writes: true,
  handler: async (input, ctx) => {
    const filter = {
      userId: ctx.principal.userId,
      view: input.view,
      query: input.query,
      unreadOnly: input.unread_only === true,
      severities: [...new Set(input.severities ?? [])],
      eventType: input.event_type === undefined || input.event_type === '' ? undefined : input.event_type,
    };
    const changed = await markViewDone(ctx.em, filter, INBOX_LIMITS.bulkViewMax, ctx.clock.now());
    announceChanged(ctx, changed);
    recordAudit(ctx.em, ctx, {
      action: INBOX_AUDIT.done,
      actorUserId: ctx.principal.userId,
      tokenId: ctx.principal.tokenId,
      targetType: 'user',
      targetId: ctx.principal.userId,
      summary: {
        view: input.view,
        filtered: filter.unreadOnly || filter.severities.length > 0 || filter.eventType !== undefined,
        updatedCount: changed.length,
      },
    });
    return { updatedCount: changed.length, more: changed.length === INBOX_LIMITS.bulkViewMax };
  },
});
