// Set-based reads and locks of the claim path (claim.ts): one statement each for all rows of a
// batch, inside the claim transaction. Values travel as array parameters, never as SQL text.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { LIVE_APPROVED } from '../catalog/catalog.rules.js';
import { InboundToken } from './tokens.entity.js';
import { pgArray } from '../sql-hints.js';

export interface ClaimUserRow {
  id: string;
  email: string;
  status: string;
}

/** Users by (normalised) email. */
export async function findUsersByEmails(em: EntityManager, emails: readonly string[]): Promise<ClaimUserRow[]> {
  if (emails.length === 0) return [];
  return run<ClaimUserRow>(em, `select id, email, status from users where email = any(?::text[])`, [pgArray(emails)]);
}

/**
 * The (employee, integrator) advisory locks of catalog.repository lockPair, for many employees in
 * one statement. Taken in ascending user id order (unnest keeps array order), so two batches
 * naming the same employees never wait on each other in a cycle.
 */
export async function lockClaimPairs(em: EntityManager, userIds: readonly string[], integratorId: string): Promise<void> {
  if (userIds.length === 0) return;
  const sorted = [...userIds].sort();
  await run(em, `select count(pg_advisory_xact_lock(hashtextextended(u || ':' || ?, 0))) from unnest(?::text[]) as u`, [integratorId, pgArray(sorted)]);
}

/** user id -> the live approved request (row-locked, in user id order) for the catalog row. */
export async function findLiveApprovals(em: EntityManager, userIds: readonly string[], itemId: string): Promise<Map<string, { id: string }>> {
  if (userIds.length === 0) return new Map();
  const rows = await run<{ id: string; user_id: string }>(
    em,
    `select id, user_id from catalog_requests where user_id = any(?::uuid[]) and catalog_item_id = ? and status = any(?::text[])
      order by user_id, id for update`,
    [pgArray(userIds), itemId, pgArray(LIVE_APPROVED)],
  );
  const byUser = new Map<string, { id: string }>();
  for (const r of rows) if (!byUser.has(r.user_id)) byUser.set(r.user_id, { id: r.id });
  return byUser;
}

/** user id -> the active claimed token of this integrator (managed entities: rotation flushes them). */
export async function findActiveClaimedTokens(em: EntityManager, userIds: readonly string[], integratorId: string): Promise<Map<string, InboundToken>> {
  if (userIds.length === 0) return new Map();
  const rows = await em.find(
    InboundToken,
    { ownerUserId: { $in: [...userIds] }, integratorId, status: 'active', claimedByToolsTokenId: { $ne: null } },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  const byUser = new Map<string, InboundToken>();
  for (const t of rows) if (!byUser.has(t.ownerUserId)) byUser.set(t.ownerUserId, t);
  return byUser;
}
