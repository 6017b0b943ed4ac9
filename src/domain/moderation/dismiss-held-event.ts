// ModerationService.DismissHeldEvent: the admin drops a pending queue entry without forwarding it.
// Idempotent (dismissing a dismissed entry returns it unchanged); a forwarded entry cannot be
// dismissed (aborted `invalid_state`). Admin role; scope write:inbox.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError, notFound } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { type HeldEventView, toHeldEventView } from './held-event.view.js';
import { findHeldEvent, updateHeldEvent } from './moderation.repository.js';
import { MODERATION_LIMITS } from './moderation.limits.js';

export const DismissHeldEventInput = z.strictObject({
  entry_id: z.uuid({ error: 'must be a UUID' }),
  reason: z.string().max(MODERATION_LIMITS.dismissReasonMax).optional(),
});

export const dismissHeldEvent = defineOperation<z.infer<typeof DismissHeldEventInput>, HeldEventView, AgentPrincipal>({
  name: 'moderation.dismiss_held_event',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: true,
  writes: true,
  input: DismissHeldEventInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const em = ctx.em;
    const entry = await findHeldEvent(em, ctx.principal.userId, input.entry_id, true);
    if (!entry) throw notFound('queue entry');
    if (entry.status === 'dismissed') return toHeldEventView(entry);
    if (entry.status !== 'pending') throw new DomainError('conflict', `the entry is already ${entry.status}`, { code: 'invalid_state' });
    const now = ctx.clock.now().toISOString();
    await updateHeldEvent(em, entry.id, { status: 'dismissed', dismissed_at: now, dismiss_reason: input.reason ?? null, updated_at: now });
    recordAudit(em, ctx, {
      action: 'moderation.event.dismissed',
      actorUserId: ctx.principal.userId,
      tokenId: ctx.principal.tokenId,
      targetType: 'moderation_entry',
      targetId: entry.id,
      summary: { delivery_id: entry.delivery_id, event_type: entry.event_type },
    });
    return toHeldEventView((await findHeldEvent(em, ctx.principal.userId, entry.id))!);
  },
});
