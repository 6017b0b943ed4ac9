import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { toDeliveryView, type DeliveryView } from './delivery.view.js';
import { listSupplements } from './events.repository.js';
import { loadOwnDelivery } from './sender-access.js';

export const GetDeliveryInput = z.strictObject({ delivery_id: z.uuid({ error: 'must be a UUID' }) });

export const getDelivery = defineOperation<z.infer<typeof GetDeliveryInput>, DeliveryView, InboundTokenPrincipal>({
  name: 'events.get',
  auth: { kind: 'inbound', tokenKinds: ['personal', 'moderation'] },
  budget: 'request',
  idempotent: false,
  input: GetDeliveryInput,
  handler: async ({ delivery_id }, ctx) => {
    const row = await loadOwnDelivery(ctx.em, ctx.principal, delivery_id);
    const supplements = await listSupplements(ctx.em, row.id);
    return toDeliveryView(row, { deduped: false, pushed: false, requestId: ctx.requestId, supplements });
  },
});
