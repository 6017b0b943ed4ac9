// Supplements are append-only follow-ups; the original text never changes.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DeliverySupplement } from './events.entity.js';
import { toDeliveryView, type DeliveryView } from './delivery.view.js';
import { listSupplements } from './events.repository.js';
import { loadOwnDelivery } from './sender-access.js';
import { EVENT_LIMITS } from './event.limits.js';

export const SupplementDeliveryInput = z.strictObject({
  delivery_id: z.uuid({ error: 'must be a UUID' }),
  markdown_body: z.string().min(1).max(EVENT_LIMITS.markdownBodyMax),
});

export const supplementDelivery = defineOperation<z.infer<typeof SupplementDeliveryInput>, DeliveryView, InboundTokenPrincipal>({
  name: 'events.supplement',
  auth: { kind: 'inbound', tokenKinds: ['personal', 'moderation'] },
  budget: 'request',
  idempotent: true,
  writes: true,
  input: SupplementDeliveryInput,
  handler: async ({ delivery_id, markdown_body }, ctx) => {
    const em = ctx.em;
    const row = await loadOwnDelivery(em, ctx.principal, delivery_id);
    em.create(DeliverySupplement, { id: randomUUID(), deliveryId: row.id, markdownBody: markdown_body, createdAt: ctx.clock.now() });
    // The supplements are read back with SQL below: the new one must be written first.
    await em.flush();
    const supplements = await listSupplements(em, row.id);
    // After the commit: the recipient's open inboxes show the new supplement.
    ctx.afterCommit(() => ctx.ports.inboxFeed.changed(row.recipient_user_id, { deliveryIds: [row.id] }));
    return toDeliveryView(row, { deduped: false, pushed: false, requestId: ctx.requestId, supplements });
  },
});
