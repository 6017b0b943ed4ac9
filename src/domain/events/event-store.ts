// Where accepted events are stored (SPEC "Dedup and repeated events", Limits): one statement per
// write, committed when the promise resolves (so a 2xx still means committed). Implemented in
// infra/events/ (the group commit of single publishes, prepared statements) and built once in
// deps.ts; operations reach it as `ctx.ports.events`. The SQL is the events repository's; the rows
// it takes and returns are stated here, with the port.
import type { EntityManager } from '@mikro-orm/core';
import type { PrincipalVersions } from '../principal.js';

/** A delivery as the statements return it (the columns of events.repository.ts DELIVERY_COLUMNS, plus the publish flags). */
export interface DeliveryRow {
  id: string;
  token_id: string;
  integrator_id: string;
  recipient_user_id: string;
  project_id: string | null;
  event_id: string;
  event_type: string;
  severity: string;
  tone: string | null;
  title: string;
  summary: string | null;
  external_url: string | null;
  external_status: string | null;
  locale: string | null;
  recipient_hint: unknown;
  occurred_at: Date | string;
  created_at: Date | string;
  resolved_at: Date | string | null;
  resolution_note: string | null;
  fire_count: number;
  inserted?: boolean;
  /** Publish only: over the token's daily_limit or the user's daily inbox limit (inbox only, no nudge). */
  degraded?: boolean;
  /** Publish only: at least one nudge (push or chat) was queued in the outbox. */
  pushed?: boolean;
}

/** One accepted event for one recipient token, to be stored (events.repository.ts newDelivery builds it). */
export interface NewDelivery {
  tokenId: string;
  integratorId: string;
  recipientUserId: string;
  projectId: string | null;
  eventId: string;
  eventType: string;
  severity: string;
  tone: string | null;
  title: string;
  summary: string | null;
  markdownBody: string | null;
  markdownBodyRendering: string | null;
  externalUrl: string | null;
  externalStatus: string | null;
  actor: unknown;
  labels: unknown;
  actions: unknown;
  recipientHint: unknown;
  recipient: unknown;
  locale: string | null;
  occurredAt: string;
}

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
