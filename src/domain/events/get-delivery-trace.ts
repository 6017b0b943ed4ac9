// GetDeliveryTrace: what the service did with one delivery, oldest first (docs/contract.md
// "Delivery trace"). For the original sender only, like the read-back; any other caller gets not
// found, exactly like an unknown id (another token's deliveries are not revealed).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { buildTrace, TraceStepSchema } from './delivery-trace.rules.js';
import { findTraceDelivery, loadTraceFacts } from './delivery-trace.repository.js';

export const GetDeliveryTraceInput = z.strictObject({ delivery_id: z.uuid({ error: 'must be a UUID' }) });

export const DeliveryTraceSchema = z.strictObject({
  deliveryId: z.uuid(),
  /** Every arrival, the first included; the trace lists the latest re-fires only. */
  fireCount: z.number().int().min(1),
  steps: z.array(TraceStepSchema),
  requestId: z.string(),
});
export type DeliveryTrace = z.infer<typeof DeliveryTraceSchema>;

export const getDeliveryTrace = defineOperation<z.infer<typeof GetDeliveryTraceInput>, DeliveryTrace, InboundTokenPrincipal>({
  name: 'events.trace',
  auth: { kind: 'inbound', tokenKinds: ['personal', 'moderation'] },
  budget: 'request',
  idempotent: false,
  input: GetDeliveryTraceInput,
  handler: async ({ delivery_id }, ctx) => {
    const d = await findTraceDelivery(ctx.em, delivery_id);
    // The token id is stable across rotation, so a rotated token still reaches its deliveries.
    if (!d || d.token_id !== ctx.principal.tokenId) throw notFound('delivery');
    const facts = await loadTraceFacts(ctx.em, d);
    return { deliveryId: d.id, fireCount: Number(d.fire_count), steps: buildTrace({ ...facts, delivery: d }), requestId: ctx.requestId };
  },
});
