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
import { expireInactiveInboundTokens, findInactivityWarningCandidates, queueMailOnce, revokeInactiveAgentTokens } from './inactivity.repository.js';
import { inactivityCutoffs, renderInactivityWarning, warningDedupeKey } from './inactivity-warning.rules.js';

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

const asDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

export async function scanTokenInactivity(em: EntityManager, env: InactivityScanEnv): Promise<InactivityScanResult> {
  const { expireAtOrBefore, warnAtOrBefore } = inactivityCutoffs(env.now);
  const now = env.now.toISOString();
  const requestId = `maintenance:tokens.inactivity-scan:${now}`;
  return em.transactional(async (tx) => {
    const inbound = await expireInactiveInboundTokens(tx, expireAtOrBefore.toISOString(), now, {
      action: AUDIT.tokenAutoExpired,
      source: MAINTENANCE_SOURCE,
      requestId,
    });
    const agent = await revokeInactiveAgentTokens(tx, expireAtOrBefore.toISOString(), now, {
      action: AGENT_TOKEN_AUTO_EXPIRED,
      source: MAINTENANCE_SOURCE,
      requestId,
    });

    // Tokens in the warning window (expired ones are no longer live, so the window is exact).
    const candidates = await findInactivityWarningCandidates(tx, warnAtOrBefore.toISOString());

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
      const queued = await queueMailOnce(tx, {
        kind: INACTIVITY_WARNING_MAIL_KIND,
        dedupeKey: warningDedupeKey(c.family, c.id, lastUsedAt ?? createdAt),
        userId: c.user_id,
        to: c.email,
        subject: mail.subject,
        text: mail.text,
        tokenId: c.id,
        now,
      });
      if (queued) warningsQueued += 1;
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
