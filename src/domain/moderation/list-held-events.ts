// ModerationService.ListHeldEvents: the caller's hold-for-forwarding queue (entries of the
// moderation tokens they own), newest first. Admin role; scope read:inbox.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { HELD_STATUSES, HeldEventView, toHeldEventView } from './held-event.view.js';
import { listHeldEvents as listRows } from './moderation.repository.js';
import { MODERATION_LIMITS } from './moderation.limits.js';

export const ListHeldEventsInput = z.strictObject({
  status: z.enum([...HELD_STATUSES, 'all']).default('pending'),
  limit: z.number().int().min(1).max(MODERATION_LIMITS.listMax).default(MODERATION_LIMITS.listDefault),
});
export const ListHeldEventsOutput = z.object({ items: z.array(HeldEventView) });

export const listHeldEvents = defineOperation<z.infer<typeof ListHeldEventsInput>, z.infer<typeof ListHeldEventsOutput>, AgentPrincipal>({
  name: 'moderation.list_held_events',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:inbox'],
  idempotent: false,
  input: ListHeldEventsInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const rows = await listRows(ctx.em, ctx.principal.userId, input.status === 'all' ? null : input.status, input.limit);
    return { items: rows.map(toHeldEventView) };
  },
});
