// Read-back, resolve and supplement are for the original sender only (SPEC Authentication 7).
import type { EntityManager } from '@mikro-orm/core';
import type { InboundTokenPrincipal } from '../principal.js';
import { forbidden, notFound } from '../errors.js';
import { findDelivery } from './events.repository.js';
import type { DeliveryRow } from './event-store.js';

/** The token id is stable across rotation, so a rotated token still reaches its deliveries. */
export async function loadOwnDelivery(em: EntityManager, principal: InboundTokenPrincipal, deliveryId: string): Promise<DeliveryRow> {
  const row = await findDelivery(em, deliveryId);
  if (!row) throw notFound('delivery');
  if (row.token_id !== principal.tokenId) throw forbidden('only the original sender may access this delivery', 'not_sender');
  return row;
}
