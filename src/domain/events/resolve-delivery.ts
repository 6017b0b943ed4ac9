// Resolve: terminal stamp, no re-push, no delete. Repeating it keeps the first stamp. When it moves
// the external status to `resolved` and the recipient turned done on resolution on, their inbox row
// moves to Done (read) in the same transaction.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { toDeliveryView, type DeliveryView } from './delivery.view.js';
import { markDeliveryResolved } from './deliveries.repository.js';
import { listSupplements } from './events.repository.js';
import { loadOwnDelivery } from './sender-access.js';
import { markResolvedRowDone } from '../inbox/inbox-state.repository.js';
import { EVENT_LIMITS } from './event.limits.js';

export const ResolveDeliveryInput = z.strictObject({
  delivery_id: z.uuid({ error: 'must be a UUID' }),
  resolution_note: z.string().max(EVENT_LIMITS.resolutionNoteMax).optional(),
});

export const resolveDelivery = defineOperation<z.infer<typeof ResolveDeliveryInput>, DeliveryView, InboundTokenPrincipal>({
  name: 'events.resolve',
  auth: { kind: 'inbound', tokenKinds: ['personal', 'moderation'] },
  budget: 'request',
  idempotent: true,
  writes: true,
  input: ResolveDeliveryInput,
  handler: async ({ delivery_id, resolution_note }, ctx) => {
    await loadOwnDelivery(ctx.em, ctx.principal, delivery_id);
    const now = ctx.clock.now();
    const row = await markDeliveryResolved(ctx.em, delivery_id, now.toISOString(), resolution_note ?? null);
    if (row?.status_moved) await markResolvedRowDone(ctx.em, delivery_id, now);
    const supplements = await listSupplements(ctx.em, delivery_id);
    // After the commit: the recipient's open inboxes show the resolved chip and the row's state (held
    // deliveries: no row, nothing read).
    ctx.afterCommit(() => ctx.ports.inboxFeed.changed(row!.recipient_user_id, { deliveryIds: [delivery_id] }));
    return toDeliveryView(row!, { deduped: false, pushed: false, requestId: ctx.requestId, supplements });
  },
});
