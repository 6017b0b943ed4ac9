// Event intake outcomes (fluxdesk_events_total, fluxdesk_events_rejected_total), read from the
// results of the two publishing operations as the runner sees them on every surface.
import type { Surface } from '../../domain/context.js';
import type { PublishResult } from '../../domain/events/publish-event.js';
import type { BulkRow } from '../../domain/events/publish-bulk.js';
import type { CounterChild, CounterFamily } from './families.js';

/**
 * Rejection codes reported as themselves (SPEC "Error codes seen in bodies", the five 401 codes, the
 * runner's own codes, bulk row errors); any other code is counted as `other`, so a new code cannot
 * grow the label set without a line here.
 */
export const REJECTION_CODES: ReadonlySet<string> = new Set([
  'schema_invalid',
  'missing_or_invalid_authorization',
  'invalid_token_format',
  'token_not_found',
  'token_mismatch',
  'token_revoked',
  'token_disabled',
  'forbidden',
  'missing_scope',
  'cross_project_blocked',
  'inbound_no_approval',
  'no_approved_request',
  'rate_limited',
  'circuit_open',
  'idempotency_key_reused',
  'idempotency_in_flight',
  'idempotency_unavailable',
  'user_not_found',
  'user_inactive',
  'no_token',
  'auto_claim_lookup_failed',
  'unavailable',
  'internal',
]);

/** The operations whose results are events (a bulk call counts each recipient row). */
export const EVENT_OPERATIONS = { single: 'events.publish', bulk: 'events.publish_bulk' } as const;

/** One surface's intake counters for one publishing operation. */
export class EventIntake {
  private readonly accepted: CounterChild;
  private readonly deduped: CounterChild;
  private readonly degraded: CounterChild;
  private readonly rejectedBy = new Map<string, CounterChild>();

  constructor(
    private readonly bulk: boolean,
    private readonly surface: Surface,
    events: CounterFamily,
    private readonly rejected: CounterFamily,
  ) {
    this.accepted = events.child(surface, 'accepted');
    this.deduped = events.child(surface, 'deduped');
    this.degraded = events.child(surface, 'degraded');
  }

  /** A call that returned (not an Idempotency-Key replay: that event was counted when it arrived). */
  succeeded(output: unknown): void {
    if (!this.bulk) {
      const d = (output as PublishResult).delivery;
      (d.deduped ? this.deduped : d.degraded ? this.degraded : this.accepted).inc();
      return;
    }
    for (const row of (output as { results: BulkRow[] }).results) {
      if (row.error !== undefined) this.reject(row.error);
      else (row.deduped ? this.deduped : row.degraded ? this.degraded : this.accepted).inc();
    }
  }

  /** A call refused as a whole (every recipient of a bulk call: counted once, as the request). */
  reject(code: string): void {
    // Bulk row errors may carry a detail (`schema_invalid:<detail>`): the code is the part before it.
    const colon = code.indexOf(':');
    const base = colon < 0 ? code : code.slice(0, colon);
    const label = REJECTION_CODES.has(base) ? base : 'other';
    let c = this.rejectedBy.get(label);
    if (!c) this.rejectedBy.set(label, (c = this.rejected.child(this.surface, label)));
    c.inc();
  }
}
