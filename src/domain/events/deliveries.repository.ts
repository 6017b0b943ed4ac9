// Statements of the sender-side delivery operations off the publish path: resolve
// (resolve-delivery.ts) and the event-type aggregates of GET /api/v1/event-types
// (list-event-types.ts). The publish path's statements are in events.repository.ts.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import type { DeliveryRow } from './event-store.js';

/**
 * Stamps a delivery resolved; a repeat keeps the first stamp and note (coalesce / case), and the
 * external status becomes `resolved` either way (its time is stamped when that changes it). Returns
 * the row as the Delivery view reads it, and whether this call changed the status (`status_moved`:
 * the status it had, read under the row's lock, was not `resolved`).
 */
export async function markDeliveryResolved(
  em: EntityManager,
  deliveryId: string,
  now: string,
  resolutionNote: string | null,
): Promise<(DeliveryRow & { status_moved: boolean }) | undefined> {
  const rows = await run<DeliveryRow & { status_moved: boolean }>(
    em,
    `with old as (select id, external_status from deliveries where id = ? for update)
     update deliveries set
           resolved_at = coalesce(resolved_at, ?::timestamptz),
           resolution_note = case when resolved_at is null then ? else resolution_note end,
           external_status_at = case when deliveries.external_status is distinct from 'resolved' then ?::timestamptz else external_status_at end,
           external_status = 'resolved'
         from old where deliveries.id = old.id
         returning deliveries.id, token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, tone, title,
           summary, markdown_body, external_url, deliveries.external_status, locale, recipient_hint, occurred_at, created_at,
           resolved_at, resolution_note, fire_count, old.external_status is distinct from 'resolved' as status_moved`,
    [deliveryId, now, resolutionNote, now],
  );
  return rows[0];
}

/** One event type's aggregate over a window of deliveries. */
export interface EventTypeAggregate {
  event_type: string;
  last_seen_at: Date | string | null;
  count: string | number;
}

// The aggregates read on the connection outside any transaction (the two of one request run at
// once, on two pooled connections).

/**
 * A user's own deliveries through one integrator since `since`: the owner's tokens of this
 * integrator (inbound_tokens_owner_user_id_index), then their deliveries of the window as a range of
 * the (token_id, created_at) include (event_type) index, index-only: one user's rows of the window,
 * never the whole integrator's nor the user's older ones.
 */
export async function eventTypesOfOwner(em: EntityManager, ownerUserId: string, integratorId: string, since: string): Promise<EventTypeAggregate[]> {
  return (await em.getConnection().execute(
    `select event_type, max(created_at) as last_seen_at, count(*) as count from deliveries
              where token_id = any(array(select t.id from inbound_tokens t where t.owner_user_id = ? and t.integrator_id = ?))
                and created_at > ?::timestamptz group by event_type order by event_type`,
    [ownerUserId, integratorId, since],
  )) as EventTypeAggregate[];
}

/** Every delivery of one integrator since `since`. */
export async function eventTypesOfIntegrator(em: EntityManager, integratorId: string, since: string): Promise<EventTypeAggregate[]> {
  return (await em.getConnection().execute(
    `select event_type, max(created_at) as last_seen_at, count(*) as count from deliveries
              where integrator_id = ? and created_at > ?::timestamptz group by event_type order by event_type`,
    [integratorId, since],
  )) as EventTypeAggregate[];
}

/**
 * One integrator's `internal-os.` types since `since`. The integrator id is bound as a value: the
 * plan is then a range of the (integrator_id, created_at) index (an id from a sub-select was
 * planned as a sequential scan of deliveries, and `like 'internal-os.%'` alone uses no index
 * under a non-C collation).
 */
export async function internalEventTypesOfIntegrator(em: EntityManager, integratorId: string, since: string): Promise<EventTypeAggregate[]> {
  return (await em.getConnection().execute(
    `select event_type, max(created_at) as last_seen_at, count(*) as count from deliveries
      where integrator_id = ? and event_type like 'internal-os.%' and created_at > ?::timestamptz group by event_type order by event_type`,
    [integratorId, since],
  )) as EventTypeAggregate[];
}
