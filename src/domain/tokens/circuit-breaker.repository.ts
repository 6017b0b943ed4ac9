// Statements of the per-token circuit breaker (circuit-breaker.ts).
import type { EntityManager } from '@mikro-orm/core';

/**
 * The token's `breaker_since` (where failure counting restarts); undefined when the token is
 * absent. Read on the connection outside any transaction.
 */
export async function findBreakerSince(em: EntityManager, tokenId: string): Promise<{ breaker_since: Date | string | null } | undefined> {
  const [t] = (await em.getConnection().execute(`select breaker_since from inbound_tokens where id = ?`, [tokenId], 'all')) as {
    breaker_since: Date | string | null;
  }[];
  return t;
}

/**
 * Publish outcomes of a token in (from, to] from the audit rows the publish path writes
 * (indexed by token): `rejected` rows are failures, `received` and `deduped` ones successes. Read on
 * the connection outside any transaction.
 */
export async function countPublishOutcomes(
  em: EntityManager,
  tokenId: string,
  from: string,
  to: string,
  actions: { rejected: string; received: string; deduped: string },
): Promise<{ failures: number; successes: number }> {
  const [c] = (await em.getConnection().execute(
    `select count(*) filter (where action = ?) as failures, count(*) filter (where action <> ?) as successes
       from audit_log where token_id = ? and created_at > ?::timestamptz and created_at <= ?::timestamptz and action in (?, ?, ?)`,
    [actions.rejected, actions.rejected, tokenId, from, to, actions.rejected, actions.received, actions.deduped],
    'all',
  )) as { failures: string | number; successes: string | number }[];
  return { failures: Number(c?.failures ?? 0), successes: Number(c?.successes ?? 0) };
}

/**
 * Opens the breaker of an active token until `until` unless it is open already at `now` (so
 * concurrent failures trip it once); returns the token when this call tripped it.
 */
export async function tripBreaker(
  em: EntityManager,
  tokenId: string,
  until: string,
  now: string,
): Promise<{ id: string; owner_user_id: string; label: string } | undefined> {
  const rows = (await em.getConnection().execute(
    `update inbound_tokens set breaker_open_until = ?::timestamptz, breaker_since = ?::timestamptz
        where id = ? and status = 'active' and (breaker_open_until is null or breaker_open_until <= ?::timestamptz)
        returning id, owner_user_id, label`,
    [until, until, tokenId, now],
    'all',
    em.getTransactionContext(),
  )) as { id: string; owner_user_id: string; label: string }[];
  return rows[0];
}

/**
 * Closes the breaker and restarts failure counting at `now` (row-locked); `was_open` tells
 * whether it was open at `now`. Undefined when the token is absent.
 */
export async function closeBreaker(
  em: EntityManager,
  tokenId: string,
  now: string,
): Promise<{ id: string; owner_user_id: string; label: string; was_open: boolean | null } | undefined> {
  const rows = (await em.getConnection().execute(
    `update inbound_tokens t set breaker_open_until = null, breaker_since = ?::timestamptz
         from (select id, breaker_open_until from inbound_tokens where id = ? for update) o
        where t.id = o.id
        returning t.id, t.owner_user_id, t.label, o.breaker_open_until > ?::timestamptz as was_open`,
    [now, tokenId, now],
    'all',
    em.getTransactionContext(),
  )) as { id: string; owner_user_id: string; label: string; was_open: boolean | null }[];
  return rows[0];
}
