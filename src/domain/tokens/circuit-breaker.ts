// The per-token circuit breaker (rules in circuit-breaker.rules.ts): tripped after a rejected
// publish, reset by an admin or an operator (reset-circuit-breaker*.ts). Nothing here runs on an
// accepted event: the authentication row already carries `breaker_open_until` (429 while open),
// and failures are counted from the audit rows the publish path writes anyway.
import type { EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import type { OpContext } from '../context.js';
import { notFound } from '../errors.js';
import { AUDIT, recordAudit } from '../audit/audit.js';
import { addNotification } from '../inbox/notify.js';
import { closeBreaker, countPublishOutcomes, findBreakerSince, tripBreaker } from './circuit-breaker.repository.js';
import { BREAKER_SUSPENSION_MS, shouldTrip, windowStart } from './circuit-breaker.rules.js';

export const BREAKER_AUDIT = {
  suspended: 'inbound.token.suspended',
  reset: 'inbound.token.breaker_reset',
} as const;

/**
 * Called after a rejected publish was audited. Trips the breaker when the token's failures since
 * the window start exceed the thresholds: the token is suspended for BREAKER_SUSPENSION_MS and the
 * owner gets an inbox notice (not subject to any daily limit). A conditional update makes sure that
 * concurrent failures trip it, and notify, once. Returns whether this call tripped it.
 */
export async function evaluateBreakerAfterFailure(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock' | 'surface' | 'requestId'>,
  tokenId: string,
): Promise<boolean> {
  const now = ctx.clock.now();
  const t = await findBreakerSince(em, tokenId);
  if (!t) return false;
  const from = windowStart(now, t.breaker_since === null ? null : new Date(t.breaker_since));
  const { failures, successes } = await countPublishOutcomes(em, tokenId, from.toISOString(), now.toISOString(), {
    rejected: AUDIT.eventRejected,
    received: AUDIT.eventReceived,
    deduped: AUDIT.eventDeduped,
  });
  if (!shouldTrip(failures, successes)) return false;

  const until = new Date(now.getTime() + BREAKER_SUSPENSION_MS);
  return em.transactional(async (tx) => {
    const row = await tripBreaker(tx, tokenId, until.toISOString(), now.toISOString());
    if (!row) return false;
    recordAudit(tx, ctx, {
      action: BREAKER_AUDIT.suspended,
      actorUserId: null,
      tokenId: row.id,
      targetType: 'inbound_token',
      targetId: row.id,
      summary: { failures, successes, suspended_until: until.toISOString() },
    });
    addNotification(tx, now, {
      userId: row.owner_user_id,
      title: `Your token "${row.label}" was suspended by the circuit breaker`,
      summary: `${failures} of its last ${failures + successes} events in the past hour were rejected. Publishing answers 429 circuit_open until ${until.toISOString()}, or until an admin resets the breaker. Fix the sender first.`,
      tags: ['circuit_open'],
    });
    return true;
  });
}

export const ResetCircuitBreakerInput = z.strictObject({ token_id: z.uuid({ error: 'must be a UUID' }) });
export const ResetCircuitBreakerOutput = z.object({ token_id: z.uuid(), was_open: z.boolean() });
export type ResetCircuitBreakerResult = z.infer<typeof ResetCircuitBreakerOutput>;

/**
 * Closes the breaker and restarts failure counting at now; notifies the owner when it was open.
 * In the caller's transaction (a writing operation's `em`).
 */
export async function resetBreaker(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock' | 'surface' | 'requestId'>,
  tokenId: string,
  actorUserId: string | null,
): Promise<ResetCircuitBreakerResult> {
  const now = ctx.clock.now();
  const row = await closeBreaker(em, tokenId, now.toISOString());
  if (!row) throw notFound('token');
  const wasOpen = row.was_open === true;
  recordAudit(em, ctx, {
    action: BREAKER_AUDIT.reset,
    actorUserId,
    tokenId: row.id,
    targetType: 'inbound_token',
    targetId: row.id,
    summary: { was_open: wasOpen },
  });
  if (wasOpen) {
    addNotification(em, now, {
      userId: row.owner_user_id,
      title: `Your token "${row.label}" works again`,
      summary: 'An admin reset its circuit breaker.',
      actorUserId,
    });
  }
  return { token_id: row.id, was_open: wasOpen };
}
