// Claim (mint or rotate) a personal token for a pre-approved employee with a tools-token
// (SPEC mode 3, "Token requests and results"). One transaction per claim call (a single claim or a
// whole batch); an advisory lock on (employee, integrator) makes concurrent claims end with
// exactly one active token whose previous value stays valid for the 24 h overlap.
import type { EntityManager } from '@mikro-orm/core';
import type { OpContext } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { AUDIT, recordAudit } from '../audit/audit.js';
import { findItemForIntegrator } from '../catalog/catalog.repository.js';
import { assertDomainAllowed, normalizeEmail } from '../users/users.rules.js';
import { rotateTokenValue } from './rotate-token.js';
import { findActiveClaimedTokens, findLiveApprovals, findUsersByEmails, lockClaimPairs } from './claim.repository.js';
import { auditTokenCreated, createInboundTokenRow } from './new-inbound-token.js';

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

export type ClaimResult = { ok: true; value: ClaimOutcome } | { ok: false; email: string; error: DomainError };

const userNotFound = (email: string) =>
  new DomainError('unprocessable', `no user with email ${email}`, { code: 'user_not_found', typeSlug: 'user-not-found', extra: { email } });
const userInactive = (email: string) => new DomainError('forbidden', `${email} is not an active user`, { code: 'user_inactive', extra: { email } });

/**
 * Claims for 1-100 employees in ONE transaction, set-based: one read of the users, one statement
 * taking every (employee, integrator) advisory lock in user id order, one locked read of the live
 * approvals, one read of the active claimed tokens, then the mints and rotations (and their audit
 * rows) in one flush. The rules per row are those of a single claim, checked in the same order:
 * email domain, user exists, user active, live approval on the integrator's catalog row; then
 * rotate the active claimed token, or mint one. Rows are independent: a refused row is a result,
 * never a failure of the others. The same employee twice behaves as two claims one after the
 * other (the second rotates what the first minted; with `reuseExisting` it reuses it). An
 * unexpected error fails the whole call and nothing is stored.
 */
export async function claimInTransaction(em: EntityManager, ctx: OpContext<InboundTokenPrincipal>, reqs: readonly ClaimRequest[]): Promise<ClaimResult[]> {
  const tools = ctx.principal;
  const now = ctx.clock.now();
  const results: ClaimResult[] = new Array(reqs.length);
  const fail = (i: number, email: string, error: DomainError) => {
    results[i] = { ok: false, email, error };
  };

  const emails = reqs.map((r) => normalizeEmail(r.email));
  const wanted: number[] = [];
  for (const [i, email] of emails.entries()) {
    try {
      assertDomainAllowed(email, ctx.config.allowedEmailDomains);
      wanted.push(i);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      fail(i, email, err);
    }
  }
  const users = new Map((await findUsersByEmails(em, [...new Set(wanted.map((i) => emails[i]!))])).map((u) => [u.email, u]));
  const eligible: Array<{ i: number; userId: string }> = [];
  for (const i of wanted) {
    const user = users.get(emails[i]!);
    if (!user) fail(i, emails[i]!, userNotFound(emails[i]!));
    else if (user.status !== 'active') fail(i, emails[i]!, userInactive(emails[i]!));
    else eligible.push({ i, userId: user.id });
  }
  if (eligible.length === 0) return results;

  const userIds = [...new Set(eligible.map((e) => e.userId))];
  await lockClaimPairs(em, userIds, tools.integratorId);
  const item = await findItemForIntegrator(em, tools.integratorId);
  const approvals = item ? await findLiveApprovals(em, userIds, item.id) : new Map<string, { id: string }>();
  const current = await findActiveClaimedTokens(
    em,
    userIds.filter((id) => approvals.has(id)),
    tools.integratorId,
  );

  for (const { i, userId } of eligible) {
    const email = emails[i]!;
    const req = reqs[i]!;
    const approval = approvals.get(userId);
    if (!approval) {
      fail(i, email, noApprovedRequest(email));
      continue;
    }
    const existing = current.get(userId);
    if (existing && req.reuseExisting) {
      results[i] = {
        ok: true,
        value: { email, token: '', tokenId: existing.id, ownerUserId: userId, expiresPriorAt: now.toISOString(), rotated: false, reused: true },
      };
      continue;
    }
    if (existing) {
      const token = rotateTokenValue(existing, now);
      existing.approvalId = approval.id;
      existing.dailyLimit = req.daily_limit;
      if (req.label !== undefined) existing.label = req.label;
      recordAudit(em, ctx, {
        action: AUDIT.tokenRotated,
        actorUserId: tools.userId,
        tokenId: existing.id,
        targetType: 'inbound_token',
        targetId: existing.id,
        summary: { via: 'claim', tools_token_id: tools.tokenId },
      });
      results[i] = {
        ok: true,
        value: { email, token, tokenId: existing.id, ownerUserId: userId, expiresPriorAt: existing.priorValidUntil!.toISOString(), rotated: true },
      };
      continue;
    }
    const { row, token } = createInboundTokenRow(em, {
      kind: 'personal',
      ownerUserId: userId,
      integratorId: tools.integratorId,
      label: req.label ?? tools.label,
      dailyLimit: req.daily_limit,
      createdAt: now,
      claimedByToolsTokenId: tools.tokenId,
      approvalId: approval.id,
    });
    current.set(userId, row);
    auditTokenCreated(em, ctx, row, { actorUserId: tools.userId }, { via: 'claim', tools_token_id: tools.tokenId, owner_user_id: userId });
    // No previous token: the overlap ends now.
    results[i] = { ok: true, value: { email, token, tokenId: row.id, ownerUserId: userId, expiresPriorAt: now.toISOString(), rotated: false } };
  }
  return results;
}

/**
 * Claims in a transaction of their own, beside the caller's (bulk publish auto-claims; its
 * deliveries are stored by the event store). Batch rows are independent (never all-or-nothing for
 * refused rows); one transaction for all.
 */
export function claimMany(ctx: OpContext<InboundTokenPrincipal>, reqs: readonly ClaimRequest[]): Promise<ClaimResult[]> {
  return ctx.em.fork().transactional((em) => claimInTransaction(em, ctx, reqs));
}

/** One claim in the caller's transaction: the same path as a batch of one; a refused row is thrown. */
export async function claimOne(em: EntityManager, ctx: OpContext<InboundTokenPrincipal>, req: ClaimRequest): Promise<ClaimOutcome> {
  const [r] = await claimInTransaction(em, ctx, [req]);
  if (!r!.ok) throw r!.error;
  return r!.value;
}
