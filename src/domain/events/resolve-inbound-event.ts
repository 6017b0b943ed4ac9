// `resolve_inbound_event` (SPEC C write tools; original sender or admin): the same terminal stamp
// as POST /api/v1/events/{id}/resolve, run through that operation with the sending token's
// principal. A repeat keeps the first stamp. Another user's delivery is not found.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { resolveDelivery, ResolveDeliveryInput } from './resolve-delivery.js';
import { loadDeliveryForAgent } from './delivery-access.js';
import { recordToolAudit } from '../audit/tool-audit.js';

export const ResolveInboundEventInput = ResolveDeliveryInput;

export const ResolveInboundEventOutput = z.object({
  ok: z.literal(true),
  deliveryId: z.uuid(),
  resolved: z.literal(true),
  resolvedAt: z.iso.datetime().optional(),
  resolutionNote: z.string().optional(),
});
export type ResolveInboundEventResult = z.infer<typeof ResolveInboundEventOutput>;

export const resolveInboundEvent = defineOperation<z.infer<typeof ResolveInboundEventInput>, ResolveInboundEventResult, AgentPrincipal>({
  name: 'agent.resolve_inbound_event',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbound'],
  idempotent: true,
  input: ResolveInboundEventInput,
  writes: true,
  handler: async (input, ctx) => {
    const { sender } = await loadDeliveryForAgent(ctx.em, ctx.principal, input.delivery_id);
    const view = await ctx.call(resolveDelivery, input, { as: sender });
    recordToolAudit(ctx.em, ctx, {
      tool: 'resolve_inbound_event',
      action: 'inbound.event.resolved',
      targetType: 'delivery',
      targetId: view.deliveryId,
      summary: { delivery_id: view.deliveryId, with_note: input.resolution_note !== undefined },
    });
    const out: ResolveInboundEventResult = { ok: true, deliveryId: view.deliveryId, resolved: true };
    if (view.resolvedAt !== null) out.resolvedAt = view.resolvedAt;
    if (view.resolutionNote !== null) out.resolutionNote = view.resolutionNote;
    return out;
  },
});
