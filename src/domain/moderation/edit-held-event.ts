// ModerationService.EditHeldEvent: the admin rewrites the text of a pending queue entry before
// forwarding it. The delivery's original text never changes (SPEC Delivery). Admin role; scope
// write:inbox. Only pending entries (else aborted `invalid_state`).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError, notFound } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { eventTitle } from '../events/event-validation.rules.js';
import { EVENT_LIMITS } from '../events/event.limits.js';
import { type HeldEventView, toHeldEventView } from './held-event.view.js';
import { findHeldEvent, updateHeldEvent } from './moderation.repository.js';

export const EditHeldEventInput = z
  .strictObject({
    entry_id: z.uuid({ error: 'must be a UUID' }),
    /** The publish rule for a title, after trimming. */
    title: eventTitle(z.string().trim()).optional(),
    /** null clears the summary. */
    summary: z.string().max(EVENT_LIMITS.summaryMax).nullable().optional(),
    /** null clears the body. */
    markdown_body: z.string().max(EVENT_LIMITS.markdownBodyMax).nullable().optional(),
  })
  .refine((v) => v.title !== undefined || v.summary !== undefined || v.markdown_body !== undefined, {
    error: 'give at least one of title, summary, markdown_body',
    params: { code: 'required' },
  });

export const editHeldEvent = defineOperation<z.infer<typeof EditHeldEventInput>, HeldEventView, AgentPrincipal>({
  name: 'moderation.edit_held_event',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: true,
  writes: true,
  input: EditHeldEventInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const em = ctx.em;
    const entry = await findHeldEvent(em, ctx.principal.userId, input.entry_id, true);
    if (!entry) throw notFound('queue entry');
    if (entry.status !== 'pending')
      throw new DomainError('conflict', `the entry is ${entry.status}; only pending entries can be edited`, { code: 'invalid_state' });
    const now = ctx.clock.now().toISOString();
    const set: Record<string, unknown> = { edited_at: now, updated_at: now };
    if (input.title !== undefined) set.title = input.title;
    if (input.summary !== undefined) set.summary = input.summary;
    if (input.markdown_body !== undefined) set.body = input.markdown_body;
    await updateHeldEvent(em, entry.id, set);
    // The summary names the edited fields only: the text itself is event content.
    recordAudit(em, ctx, {
      action: 'moderation.event.edited',
      actorUserId: ctx.principal.userId,
      tokenId: ctx.principal.tokenId,
      targetType: 'moderation_entry',
      targetId: entry.id,
      summary: {
        fields: Object.keys(set)
          .filter((k) => !k.endsWith('_at'))
          .map((k) => (k === 'body' ? 'markdown_body' : k)),
      },
    });
    return toHeldEventView((await findHeldEvent(em, ctx.principal.userId, entry.id))!);
  },
});
