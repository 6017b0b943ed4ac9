// Where accepted events are stored (SPEC "Dedup and repeated events", Limits): one statement per
// write, committed when the promise resolves (so a 2xx still means committed). Implemented in
// infra/events/ (the group commit of single publishes, prepared statements) and built once in
// deps.ts; operations reach it as `ctx.ports.events`. The SQL is the events repository's.
import type { EntityManager } from '@mikro-orm/core';
import type { PrincipalVersions } from '../context.js';
import type { DeliveryRow, NewDelivery } from './events.repository.js';

/** How a delivery arrived: the request's time, the UTC day its daily counters count in, the surface and request id. */
export interface Arrival {
  now: string;
  /** The service clock's UTC date (YYYY-MM-DD). */
  day: string;
  source: string;
  requestId: string;
}

export interface EventStore {
  /**
   * One delivery of the calling token: a new one (`inserted`), or a repeat of its (token,
   * event_id) (fire_count + 1); `degraded` over a daily limit, `pushed` when a nudge was queued.
   * `hold` (moderation token): a hold-for-forwarding queue entry instead of an inbox row, no nudge.
   * `verify` (a principal from the principal cache): written only if the token, its owner and its
   * integrator rows are still at those versions; otherwise nothing is written and it throws
   * StalePrincipalError (tokens/token-directory.ts).
   */
  publish(delivery: NewDelivery, arrival: Arrival & { hold: boolean; verify: PrincipalVersions | undefined }): Promise<DeliveryRow>;
  /**
   * Many deliveries (bulk fan-out) in ONE statement, in `em`'s transaction when it is in one:
   * atomic together. (token, event_id) pairs must be distinct; rows come back in input order.
   */
  publishMany(em: EntityManager, deliveries: NewDelivery[], arrival: Arrival): Promise<DeliveryRow[]>;
}
