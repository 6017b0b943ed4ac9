// Claim (mint or rotate) a personal token for a pre-approved employee with a tools-token
// (SPEC mode 3, "Token requests and results"). One transaction per claim; an advisory lock on
// (employee, integrator) makes concurrent claims end with exactly one active token whose
// previous value stays valid for the 24 h overlap.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import type { InboundTokenPrincipal, OpContext } from '../context.js';
import { DomainError } from '../errors.js';
import { AUDIT, recordAudit } from '../audit/audit.js';
import { findItemForIntegrator, findLiveApproval, lockPair } from '../catalog/catalog.repository.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { assertDomainAllowed, normalizeEmail } from '../users/users.rules.js';
import { InboundToken } from './tokens.entity.js';
import { newSigningSecret, newTokenValue, sha256Hex, TOKEN_PREFIX } from './token-crypto.js';
import { displayPrefix } from './token-format.rules.js';
import { rotateTokenValue } from './rotate-token.js';

export interface ClaimOutcome {
  email: string;
  token: string;
  tokenId: string;
  ownerUserId: string;
  expiresPriorAt: string;
  rotated: boolean;
  /** Only with `reuseExisting`: an active claimed token already existed and was kept as it is (`token` is then empty: a value is never re-shown). */
  reused?: boolean;
}

export interface ClaimRequest {
  email: string;
  label?: string;
  daily_limit: number;
  /** Bulk auto-claim: mint only when no active claimed token exists; never rotate one (a concurrent claim's value stays current). */
  reuseExisting?: boolean;
}

export const noApprovedRequest = (email: string) =>
  new DomainError('forbidden', `${email} has no approved request for this integrator's catalog row`, { code: 'no_approved_request', extra: { email } });

/** Runs inside the caller's transaction (`em`). */
export async function claimInTransaction(em: EntityManager, ctx: OpContext<InboundTokenPrincipal>, req: ClaimRequest): Promise<ClaimOutcome> {
  const tools = ctx.principal;
  const email = normalizeEmail(req.email);
  assertDomainAllowed(email, ctx.config.allowedEmailDomains);
  const user = await requireUserByEmail(em, email);
  if (user.status !== 'active') throw new DomainError('forbidden', `${email} is not an active user`, { code: 'user_inactive', extra: { email } });
  await lockPair(em, user.id, tools.integratorId);
  const item = await findItemForIntegrator(em, tools.integratorId);
  const approval = item ? await findLiveApproval(em, user.id, item.id) : undefined;
  if (!approval) throw noApprovedRequest(email);

  const now = ctx.clock.now();
  const existing = await em.findOne(InboundToken, { ownerUserId: user.id, integratorId: tools.integratorId, status: 'active', claimedByToolsTokenId: { $ne: null } });
  if (existing && req.reuseExisting) {
    return { email, token: '', tokenId: existing.id, ownerUserId: user.id, expiresPriorAt: now.toISOString(), rotated: false, reused: true };
  }
  if (existing) {
    const token = rotateTokenValue(existing, now);
    existing.approvalId = approval.id;
    existing.dailyLimit = req.daily_limit;
    if (req.label !== undefined) existing.label = req.label;
    recordAudit(em, ctx, { action: AUDIT.tokenRotated, actorUserId: tools.userId, tokenId: existing.id, targetType: 'inbound_token', targetId: existing.id, summary: { via: 'claim', tools_token_id: tools.tokenId } });
    await em.flush();
    return { email, token, tokenId: existing.id, ownerUserId: user.id, expiresPriorAt: existing.priorValidUntil!.toISOString(), rotated: true };
  }
  const token = newTokenValue(TOKEN_PREFIX.personal);
  const row = em.create(InboundToken, {
    id: randomUUID(),
    kind: 'personal',
    tokenHash: sha256Hex(token),
    displayPrefix: displayPrefix(token),
    ownerUserId: user.id,
    integratorId: tools.integratorId,
    label: req.label ?? tools.label,
    dailyLimit: req.daily_limit,
    status: 'active',
    callbackSecret: newSigningSecret(),
    createdAt: now,
    claimedByToolsTokenId: tools.tokenId,
    approvalId: approval.id,
  });
  recordAudit(em, ctx, { action: AUDIT.tokenCreated, actorUserId: tools.userId, tokenId: row.id, targetType: 'inbound_token', targetId: row.id, summary: { via: 'claim', tools_token_id: tools.tokenId, owner_user_id: user.id } });
  await em.flush();
  // No previous token: the overlap ends now.
  return { email, token, tokenId: row.id, ownerUserId: user.id, expiresPriorAt: now.toISOString(), rotated: false };
}

export function claimOne(ctx: OpContext<InboundTokenPrincipal>, req: ClaimRequest): Promise<ClaimOutcome> {
  return ctx.em.fork().transactional((em) => claimInTransaction(em, ctx, req));
}

/** Batch rows are independent (never all-or-nothing); a few run at a time. */
export async function claimMany(ctx: OpContext<InboundTokenPrincipal>, reqs: ClaimRequest[], concurrency = 8): Promise<Array<{ ok: true; value: ClaimOutcome } | { ok: false; email: string; error: DomainError }>> {
  const results: Array<{ ok: true; value: ClaimOutcome } | { ok: false; email: string; error: DomainError }> = new Array(reqs.length);
  let next = 0;
  const worker = async () => {
    while (next < reqs.length) {
      const i = next++;
      const r = reqs[i]!;
      try {
        results[i] = { ok: true, value: await claimOne(ctx, r) };
      } catch (err) {
        if (!(err instanceof DomainError) || err.kind === 'internal' || err.kind === 'unavailable') throw err;
        results[i] = { ok: false, email: normalizeEmail(r.email), error: err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, reqs.length) }, worker));
  return results;
}
