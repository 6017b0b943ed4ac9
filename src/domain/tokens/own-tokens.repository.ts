import { LockMode, type EntityManager } from '@mikro-orm/core';
import { notFound } from '../errors.js';
import { InboundToken } from './tokens.entity.js';

/** The caller's own inbound token, locked for update; another user's id is simply not found. */
export async function requireOwnToken(em: EntityManager, ownerUserId: string, tokenId: string): Promise<InboundToken> {
  const t = await em.findOne(InboundToken, { id: tokenId, ownerUserId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!t) throw notFound('token');
  return t;
}

export interface OwnTokenRow {
  id: string;
  kind: string;
  label: string;
  status: string;
  display_prefix: string;
  daily_limit: number;
  integrator_id: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
  callback_secret: string;
  note: string | null;
  nudge_threshold: string;
}

/** A user's own personal and moderation tokens, newest first (never values; the callback secret is the owner's to see). */
export async function listOwnTokenRows(em: EntityManager, ownerUserId: string): Promise<OwnTokenRow[]> {
  return (await em.getConnection().execute(
    `select id, kind, label, status, display_prefix, daily_limit, integrator_id, created_at, last_used_at, revoked_at, callback_secret, note,
            nudge_threshold
         from inbound_tokens where owner_user_id = ? and kind <> 'tools_claim' order by created_at desc`,
    [ownerUserId],
  )) as OwnTokenRow[];
}

/** Sets the nudge threshold of one of the owner's own tokens (as listed: not tools_claim); false when it is not theirs. */
export async function setOwnTokenNudgeThresholdRow(em: EntityManager, ownerUserId: string, tokenId: string, threshold: string): Promise<boolean> {
  const rows = (await em
    .getConnection()
    .execute(
      `update inbound_tokens set nudge_threshold = ? where id = ? and owner_user_id = ? and kind <> 'tools_claim' returning id`,
      [threshold, tokenId, ownerUserId],
      'all',
      em.getTransactionContext(),
    )) as { id: string }[];
  return rows.length > 0;
}

/**
 * Revokes every inbound token of a user not yet revoked (with `reason`) and every live agent
 * token; returns the inbound token ids and how many agent tokens were revoked.
 */
export async function revokeEveryTokenOfUser(
  em: EntityManager,
  userId: string,
  reason: string,
  now: string,
): Promise<{ inboundIds: string[]; agentCount: number }> {
  const conn = em.getConnection();
  const tx = em.getTransactionContext();
  const rows = (await conn.execute(
    `update inbound_tokens set status = 'revoked', revoked_at = ?::timestamptz, revoked_reason = ? where owner_user_id = ? and status <> 'revoked' returning id`,
    [now, reason, userId],
    'all',
    tx,
  )) as { id: string }[];
  const agents = (await conn.execute(
    `update agent_tokens set revoked_at = ?::timestamptz where user_id = ? and revoked_at is null returning id`,
    [now, userId],
    'all',
    tx,
  )) as { id: string }[];
  return { inboundIds: rows.map((r) => r.id), agentCount: agents.length };
}
