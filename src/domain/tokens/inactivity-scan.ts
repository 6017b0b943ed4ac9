// The daily inactivity scan (maintenance task `tokens.inactivity-scan`; docs/contract.md "Personal
// token lifecycle"): personal and moderation tokens unused for 12 months become `auto_expired`,
// agent tokens unused as long are revoked, and owners get one warning mail 30 days ahead (queued in
// the mail outbox, deduped per token and cycle). Every statement is set-based and idempotent, so a
// re-run expires and mails each token once. `now` comes from the caller's clock.
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
