// The daily inactivity scan (SPEC "Personal token lifecycle": `active` -> `auto_expired` after 12
// months without use, owner warned by mail 30 days ahead; Limits: personal and agent tokens; audit
// key `inbound.token.auto_expired`). Run by the job queue as maintenance task
// `tokens.inactivity-scan`; it reads `now` from the caller (the injected clock), never the database's.
//
// - Personal and moderation tokens (`inbound_tokens`, not tools-tokens) in `active` whose last use
//   (last_used_at, else created_at) is 12 months or more before `now` become `auto_expired`: requests
//   with them then get 401 `token_revoked` (SPEC Authentication 3: disabled, revoked or expired).
//   Disabled tokens are left alone (the state table expires `active` ones only).
// - Agent tokens unused as long are revoked (`revoked_at` = now; agent tokens have no status column
//   and authentication already refuses them past 12 months), audited as `agent.token.auto_expired`.
// - Tokens 11 months (12 months minus 30 days) into their cycle get one warning mail, queued in the
//   mail outbox in the same transaction. The outbox's unique dedupe key (token + the last use that
//   started the cycle) makes a re-run the same day or any later day a no-op; a use moves the last use
//   and so starts a new cycle. Owners who are no longer active are not mailed.
//
// Every statement is set-based or keyed and idempotent, so two processes running it at once (which
// the queue's one-job-per-period rule already prevents) would still expire and mail each token once.
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { DomainConfig } from '../context.js';
import { AUDIT } from '../audit/audit.js';
import { inactivityCutoffs, renderInactivityWarning, warningDedupeKey, type InactivityTokenFamily } from './inactivity-warning.rules.js';

export const AGENT_TOKEN_AUTO_EXPIRED = 'agent.token.auto_expired';
export const INACTIVITY_WARNING_MAIL_KIND = 'token_inactivity_warning';
/** The audit `source` of rows written by maintenance tasks (no request, no surface). */
export const MAINTENANCE_SOURCE = 'maintenance';

export interface InactivityScanEnv {
  now: Date;
  publicBaseUrl: string;
}

export interface InactivityScanResult {
  expiredInbound: number;
  expiredAgent: number;
  warningsQueued: number;
}

interface WarningCandidate {
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

const asDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

export async function scanTokenInactivity(em: EntityManager, env: InactivityScanEnv): Promise<InactivityScanResult> {
  const { expireAtOrBefore, warnAtOrBefore } = inactivityCutoffs(env.now);
  const now = env.now.toISOString();
  const requestId = `maintenance:tokens.inactivity-scan:${now}`;
  return em.transactional(async (tx) => {
    const conn = tx.getConnection();
    const tctx = tx.getTransactionContext();

    const inbound = (await conn.execute(
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
      [expireAtOrBefore.toISOString(), AUDIT.tokenAutoExpired, MAINTENANCE_SOURCE, requestId, now],
      'all',
      tctx,
    )) as { token_id: string }[];

    const agent = (await conn.execute(
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
      [now, expireAtOrBefore.toISOString(), AGENT_TOKEN_AUTO_EXPIRED, MAINTENANCE_SOURCE, requestId, now],
      'all',
      tctx,
    )) as { token_id: string }[];

    // Tokens in the warning window (expired ones are no longer live, so the window is exact).
    const candidates = (await conn.execute(
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
      [warnAtOrBefore.toISOString(), warnAtOrBefore.toISOString()],
      'all',
      tctx,
    )) as WarningCandidate[];

    let warningsQueued = 0;
    for (const c of candidates) {
      const createdAt = asDate(c.created_at);
      const lastUsedAt = c.last_used_at === null ? null : asDate(c.last_used_at);
      const mail = renderInactivityWarning({
        family: c.family,
        kind: c.kind,
        label: c.label,
        displayPrefix: c.display_prefix,
        lastUsedAt,
        createdAt,
        publicBaseUrl: env.publicBaseUrl,
      });
      const inserted = (await conn.execute(
        `insert into mail_outbox (id, kind, dedupe_key, user_id, to_address, subject, body_text, status, attempts, token_id, created_at, next_attempt_at, updated_at)
         values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz)
         on conflict (dedupe_key) do nothing
         returning id`,
        [INACTIVITY_WARNING_MAIL_KIND, warningDedupeKey(c.family, c.id, lastUsedAt ?? createdAt), c.user_id, c.email, mail.subject, mail.text, c.id, now, now, now],
        'all',
        tctx,
      )) as { id: string }[];
      warningsQueued += inserted.length;
    }
    return { expiredInbound: inbound.length, expiredAgent: agent.length, warningsQueued };
  });
}

/**
 * The MaintenanceTask (src/app/maintenance-tasks.ts) behind the daily job `tokens.inactivity-scan`.
 * Warning mails leave through the `mail.outbox` task (within a minute).
 */
export const tokenInactivityScanTask = {
  name: 'tokens.inactivity-scan',
  everySeconds: 86_400,
  run: async (deps: { orm: MikroORM; config: DomainConfig }, now: Date): Promise<{ processed: number } & InactivityScanResult> => {
    const r = await scanTokenInactivity(deps.orm.em.fork(), { now, publicBaseUrl: deps.config.publicBaseUrl });
    return { processed: r.expiredInbound + r.expiredAgent + r.warningsQueued, ...r };
  },
};
