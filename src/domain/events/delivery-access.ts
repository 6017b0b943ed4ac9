// Resolve and supplement for agent callers (SPEC "Delivery external status": the original sender;
// C write tools: "original sender or admin"). The sender is the owner of the token that delivered
// the event, which is the delivery's recipient (Ownership rule). The token-based check for
// inbound callers is sender-access.ts; this is its agent-side twin.
import type { EntityManager } from '@mikro-orm/core';
import type { AgentPrincipal, InboundTokenPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { findDelivery } from './events.repository.js';
import type { DeliveryRow } from './event-store.js';
import { ADMIN_ROLES } from '../users/users.entity.js';
import { principalForInboundToken } from '../tokens/tools-principal.js';

/**
 * The delivery when the agent's user sent it or is an admin. Anyone else gets not found, exactly
 * like an unknown id (another user's deliveries are not revealed).
 */
export async function loadDeliveryForAgent(
  em: EntityManager,
  p: AgentPrincipal,
  deliveryId: string,
): Promise<{ row: DeliveryRow; sender: InboundTokenPrincipal }> {
  const row = await findDelivery(em, deliveryId);
  if (!row || (row.recipient_user_id !== p.userId && !ADMIN_ROLES.includes(p.userRole))) throw notFound('delivery');
  // The sending token's principal: the events operations check the sender against it.
  const sender = await principalForInboundToken(em, row.token_id);
  if (!sender) throw notFound('delivery');
  return { row, sender };
}
