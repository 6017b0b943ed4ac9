// The per-token circuit breaker (rules in circuit-breaker.rules.ts). Nothing here runs on an
// accepted event: the authentication row already carries `breaker_open_until` (429 while open),
// and failures are evaluated only when a publish is rejected, from the audit rows that the
// publish path writes anyway (inbound.event.received / deduped / rejected; indexed by token).
import type { EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import { defineOperation, type AgentPrincipal, type OpContext } from '../context.js';
import { notFound } from '../errors.js';
import { AUDIT, recordAudit } from '../audit/audit.js';
import { addNotification } from '../inbox/notify.js';
import { requireAdminUser } from './admin-token-operations.js';
import { BREAKER_SUSPENSION_MS, shouldTrip, windowStart } from './circuit-breaker.rules.js';

export const BREAKER_AUDIT = {
  suspended: 'inbound.token.suspended',
  reset: 'inbound.token.breaker_reset',
} as const;

interface CountRow {
  breaker_since: Date | string | null;
  failures: string | number;
  successes: string | number;
}

/**
 * Called after a rejected publish was audited. Trips the breaker when the token's failures since
 * the window start exceed the thresholds: the token is suspended for BREAKER_SUSPENSION_MS and the
 * owner gets an inbox notice (not subject to any daily limit). A conditional update makes sure that
 * concurrent failures trip it, and notify, once. Returns whether this call tripped it.
 */
export async function evaluateBreakerAfterFailure(em: EntityManager, ctx: Pick<OpContext, 'clock' | 'surface' | 'requestId'>, tokenId: string): Promise<boolean> {
  const now = ctx.clock.now();
  const conn = em.getConnection();
  const [t] = (await conn.execute(`select breaker_since from inbound_tokens where id = ?`, [tokenId], 'all')) as { breaker_since: Date | string | null }[];
  if (!t) return false;
  const from = windowStart(now, t.breaker_since === null ? null : new Date(t.breaker_since));
  const [c] = (await conn.execute(
    `select count(*) filter (where action = ?) as failures, count(*) filter (where action <> ?) as successes
       from audit_log where token_id = ? and created_at > ?::timestamptz and created_at <= ?::timestamptz and action in (?, ?, ?)`,
    [AUDIT.eventRejected, AUDIT.eventRejected, tokenId, from.toISOString(), now.toISOString(), AUDIT.eventRejected, AUDIT.eventReceived, AUDIT.eventDeduped],
    'all',
  )) as CountRow[];
  const failures = Number(c?.failures ?? 0);
  const successes = Number(c?.successes ?? 0);
  if (!shouldTrip(failures, successes)) return false;

  const until = new Date(now.getTime() + BREAKER_SUSPENSION_MS);
  return em.transactional(async (tx) => {
    const rows = (await tx.getConnection().execute(
      `update inbound_tokens set breaker_open_until = ?::timestamptz, breaker_since = ?::timestamptz
        where id = ? and status = 'active' and (breaker_open_until is null or breaker_open_until <= ?::timestamptz)
        returning id, owner_user_id, label`,
      [until.toISOString(), until.toISOString(), tokenId, now.toISOString()],
      'all',
      tx.getTransactionContext(),
    )) as { id: string; owner_user_id: string; label: string }[];
    const row = rows[0];
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
    await tx.flush();
    return true;
  });
}

export const ResetCircuitBreakerInput = z.strictObject({ token_id: z.uuid({ error: 'must be a UUID' }) });
export const ResetCircuitBreakerOutput = z.object({ token_id: z.uuid(), was_open: z.boolean() });
export type ResetCircuitBreakerResult = z.infer<typeof ResetCircuitBreakerOutput>;

/** Closes the breaker and restarts failure counting at now; notifies the owner when it was open. */
async function resetBreaker(em: EntityManager, ctx: Pick<OpContext, 'clock' | 'surface' | 'requestId'>, tokenId: string, actorUserId: string | null): Promise<ResetCircuitBreakerResult> {
  return em.transactional(async (tx) => {
    const now = ctx.clock.now();
    const rows = (await tx.getConnection().execute(
      `update inbound_tokens t set breaker_open_until = null, breaker_since = ?::timestamptz
         from (select id, breaker_open_until from inbound_tokens where id = ? for update) o
        where t.id = o.id
        returning t.id, t.owner_user_id, t.label, o.breaker_open_until > ?::timestamptz as was_open`,
      [now.toISOString(), tokenId, now.toISOString()],
      'all',
      tx.getTransactionContext(),
    )) as { id: string; owner_user_id: string; label: string; was_open: boolean | null }[];
    const row = rows[0];
    if (!row) throw notFound('token');
    const wasOpen = row.was_open === true;
    recordAudit(tx, ctx, { action: BREAKER_AUDIT.reset, actorUserId, tokenId: row.id, targetType: 'inbound_token', targetId: row.id, summary: { was_open: wasOpen } });
    if (wasOpen) {
      addNotification(tx, now, {
        userId: row.owner_user_id,
        title: `Your token "${row.label}" works again`,
        summary: 'An admin reset its circuit breaker.',
        actorUserId,
      });
    }
    await tx.flush();
    return { token_id: row.id, was_open: wasOpen };
  });
}

/** Admin reset (ModerationService.ResetCircuitBreaker): admin role and scope admin:tokens. */
export const resetCircuitBreaker = defineOperation<z.infer<typeof ResetCircuitBreakerInput>, ResetCircuitBreakerResult, AgentPrincipal>({
  name: 'tokens.reset_circuit_breaker',
  auth: { kind: 'agent' },
  rateLimited: true,
  requiredScopes: ['admin:tokens'],
  idempotent: true,
  input: ResetCircuitBreakerInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    return resetBreaker(ctx.em, ctx, input.token_id, ctx.principal.userId);
  },
});

/** Operator reset (CLI `token reset-breaker --token-id ID`). */
export const resetCircuitBreakerAsOperator = defineOperation<z.infer<typeof ResetCircuitBreakerInput>, ResetCircuitBreakerResult>({
  name: 'tokens.reset_circuit_breaker_operator',
  auth: { kind: 'system' },
  rateLimited: false,
  idempotent: false,
  input: ResetCircuitBreakerInput,
  handler: async (input, ctx) => resetBreaker(ctx.em, ctx, input.token_id, null),
});
