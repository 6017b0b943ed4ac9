// `supplement_inbound_event` (SPEC C write tools; original sender or admin; body at most
// EVENT_LIMITS.toolSupplementMax characters, Limits "Agent tool bounds"): appends a follow-up through the supplement operation of
// POST /api/v1/events/{id}/supplement, with the sending token's principal. Append-only.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { SupplementDeliveryInput, supplementDelivery } from './supplement-delivery.js';
import { listSupplements } from './events.repository.js';
import { loadDeliveryForAgent } from './delivery-access.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { EVENT_LIMITS } from './event.limits.js';

export const SUPPLEMENT_TOOL_MAX = EVENT_LIMITS.toolSupplementMax;

export const SupplementInboundEventInput = SupplementDeliveryInput.extend({ markdown_body: z.string().min(1).max(SUPPLEMENT_TOOL_MAX) });

export const SupplementInboundEventOutput = z.object({
  ok: z.literal(true),
  deliveryId: z.uuid(),
  supplementId: z.uuid(),
  createdAt: z.iso.datetime(),
});
export type SupplementInboundEventResult = z.infer<typeof SupplementInboundEventOutput>;

export const supplementInboundEvent = defineOperation<z.infer<typeof SupplementInboundEventInput>, SupplementInboundEventResult, AgentPrincipal>({
  name: 'agent.supplement_inbound_event',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbound'],
  idempotent: false,
  input: SupplementInboundEventInput,
  writes: true,
  handler: async (input, ctx) => {
    const { row, sender } = await loadDeliveryForAgent(ctx.em, ctx.principal, input.delivery_id);
    // The supplement operation answers the whole Delivery: ours is the row that was not there before.
    const before = new Set((await listSupplements(ctx.em, row.id)).map((s) => s.id));
    const view = await ctx.call(supplementDelivery, input, { as: sender });
    const added = view.supplements.filter((s) => !before.has(s.id)).at(-1)!;
    recordToolAudit(ctx.em, ctx, {
      tool: 'supplement_inbound_event',
      action: 'inbound.event.supplemented',
      targetType: 'delivery',
      targetId: view.deliveryId,
      summary: { delivery_id: view.deliveryId, supplement_id: added.id, length: input.markdown_body.length },
    });
    return { ok: true as const, deliveryId: view.deliveryId, supplementId: added.id, createdAt: added.createdAt };
  },
});
