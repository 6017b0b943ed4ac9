// Statements of the daily inactivity scan (inactivity-scan.ts). Each is set-based or keyed and
// idempotent, and runs in the scan's transaction.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import type { InactivityTokenFamily } from './inactivity-warning.rules.js';

/** Who the expiry audit rows name: their action, source and request id. */
export interface ExpiryAudit {
  action: string;
  source: string;
  requestId: string;
}

/**
 * Active personal and moderation tokens last used (else created) at or before `cutoff` become
 * `auto_expired`, each with an audit row; returns the expired token ids.
 */
export async function expireInactiveInboundTokens(em: EntityManager, cutoff: string, now: string, audit: ExpiryAudit): Promise<string[]> {
  const rows = await run<{ token_id: string }>(
    em,
    `with expired as (
         update inbound_tokens set status = 'auto_expired'
          where status = 'active' and kind in ('personal', 'moderation') and coalesce(last_used_at, created_at) <= ?::timestamptz
          returning id, owner_user_id, kind, label, display_prefix, last_used_at, created_at
       )
       insert into audit_log (id, action, source, actor_user_id, token_id, target_type, target_id, request_id, summary, created_at)
       select gen_random_uuid(), ?, ?, null, e.id, 'inbound_token', e.id::text, ?,
              jsonb_build_object('kind', e.kind, 'owner_user_id', e.owner_user_id, 'label', e.label, 'display_prefix', e.display_prefix,
                                 'last_used_at', e.last_used_at, 'created_at', e.created_at, 'reason', 'unused for 12 months'),
              ?::timestamptz
         from expired e
       returning token_id`,
    [cutoff, audit.action, audit.source, audit.requestId, now],
  );
  return rows.map((r) => r.token_id);
}

/** Live agent tokens last used (else created) at or before `cutoff` are revoked at `now`, each with an audit row; returns their ids. */
export async function revokeInactiveAgentTokens(em: EntityManager, cutoff: string, now: string, audit: ExpiryAudit): Promise<string[]> {
  const rows = await run<{ token_id: string }>(
    em,
    `with expired as (
         update agent_tokens set revoked_at = ?::timestamptz
          where revoked_at is null and coalesce(last_used_at, created_at) <= ?::timestamptz
          returning id, user_id, label, display_prefix, last_used_at, created_at
       )
       insert into audit_log (id, action, source, actor_user_id, token_id, target_type, target_id, request_id, summary, created_at)
       select gen_random_uuid(), ?, ?, null, e.id, 'agent_token', e.id::text, ?,
              jsonb_build_object('owner_user_id', e.user_id, 'label', e.label, 'display_prefix', e.display_prefix,
                                 'last_used_at', e.last_used_at, 'created_at', e.created_at, 'reason', 'unused for 12 months'),
              ?::timestamptz
         from expired e
       returning token_id`,
    [now, cutoff, audit.action, audit.source, audit.requestId, now],
  );
  return rows.map((r) => r.token_id);
}

export interface WarningCandidate {
  family: InactivityTokenFamily;
  id: string;
  kind: string;
  label: string;
  display_prefix: string;
  last_used_at: Date | string | null;
  created_at: Date | string;
  user_id: string;
  email: string;
}

/** Live personal, moderation and agent tokens of active owners last used (else created) at or before `cutoff`, oldest first. */
export async function findInactivityWarningCandidates(em: EntityManager, cutoff: string): Promise<WarningCandidate[]> {
  return await run<WarningCandidate>(
    em,
    `select 'inbound' as family, t.id, t.kind, t.label, t.display_prefix, t.last_used_at, t.created_at, u.id as user_id, u.email
         from inbound_tokens t join users u on u.id = t.owner_user_id
        where t.status = 'active' and t.kind in ('personal', 'moderation') and u.status = 'active'
          and coalesce(t.last_used_at, t.created_at) <= ?::timestamptz
       union all
       select 'agent' as family, a.id, 'agent' as kind, a.label, a.display_prefix, a.last_used_at, a.created_at, u.id as user_id, u.email
         from agent_tokens a join users u on u.id = a.user_id
        where a.revoked_at is null and u.status = 'active'
          and coalesce(a.last_used_at, a.created_at) <= ?::timestamptz
        order by created_at`,
    [cutoff, cutoff],
  );
}

export interface QueuedMail {
  kind: string;
  dedupeKey: string;
  userId: string;
  to: string;
  subject: string;
  text: string;
  tokenId: string;
  now: string;
}

/** Queues a mail in the outbox unless one with its dedupe key exists; returns whether it was queued. */
export async function queueMailOnce(em: EntityManager, m: QueuedMail): Promise<boolean> {
  const inserted = await run<{ id: string }>(
    em,
    `insert into mail_outbox (id, kind, dedupe_key, user_id, to_address, subject, body_text, status, attempts, token_id, created_at, next_attempt_at, updated_at)
         values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz)
         on conflict (dedupe_key) do nothing
         returning id`,
    [m.kind, m.dedupeKey, m.userId, m.to, m.subject, m.text, m.tokenId, m.now, m.now, m.now],
  );
  return inserted.length > 0;
}
