// POST /api/v1/tokens/claim and the older /claim: mint or rotate one employee's personal token.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { claimInTransaction, claimOne, type ClaimOutcome } from './claim.js';
import { ClaimTokenRequestSchema, type ClaimTokenRequest } from './claim-token.rules.js';
import { requireAdminToolsToken } from './tools-access.rules.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

export const claimToken = defineOperation<ClaimTokenRequest, ClaimOutcome, InboundTokenPrincipal>({
  name: 'tokens.claim',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  // A claim answers with a token value, which is never stored anywhere (not even in the
  // idempotency cache): claims do not replay from an Idempotency-Key.
  idempotent: false,
  writes: true,
  input: ClaimTokenRequestSchema,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    return claimOne(ctx.em, ctx, input);
  },
});

export const ClaimTokenBatchRequestSchema = z.strictObject({ claims: z.array(ClaimTokenRequestSchema).min(1).max(TOKEN_LIMITS.claimBatchMax) });

export interface ClaimBatchRow {
  email: string;
  ok: boolean;
  token?: { token: string; tokenId: string; ownerUserId: string; expiresPriorAt: string };
  reason?: string;
}

export const claimTokenBatch = defineOperation<
  z.infer<typeof ClaimTokenBatchRequestSchema>,
  { results: ClaimBatchRow[]; requestId: string },
  InboundTokenPrincipal
>({
  name: 'tokens.claim_batch',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  idempotent: false,
  writes: true,
  input: ClaimTokenBatchRequestSchema,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const rows = await claimInTransaction(ctx.em, ctx, input.claims);
    return {
      results: rows.map((r) =>
        r.ok
          ? {
              email: r.value.email,
              ok: true,
              token: { token: r.value.token, tokenId: r.value.tokenId, ownerUserId: r.value.ownerUserId, expiresPriorAt: r.value.expiresPriorAt },
            }
          : { email: r.email, ok: false, reason: r.error.code },
      ),
      requestId: ctx.requestId,
    };
  },
});

/** Older batch: at most TOKEN_LIMITS.legacyClaimBatchMax emails (more: 400 emails_too_many); always 200 with per-row results. */
export const LegacyClaimBatchSchema = z.strictObject({
  // The cap is checked in the handler: it answers with its own code, emails_too_many.
  emails: z.array(z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax)).min(1),
});

export interface LegacyClaimBatchResult {
  succeeded: number;
  failed: number;
  results: Array<{ email: string; ok: true; token: string; token_id: string; rotated: boolean } | { email: string; ok: false; error: string }>;
}

export const legacyClaimBatch = defineOperation<z.infer<typeof LegacyClaimBatchSchema>, LegacyClaimBatchResult, InboundTokenPrincipal>({
  name: 'tokens.claim_batch_legacy',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  idempotent: false,
  writes: true,
  input: LegacyClaimBatchSchema,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    if (input.emails.length > TOKEN_LIMITS.legacyClaimBatchMax) {
      const message = `at most ${TOKEN_LIMITS.legacyClaimBatchMax} emails per batch`;
      throw new DomainError('validation', message, {
        code: 'emails_too_many',
        issues: [{ field: 'emails', code: 'emails_too_many', message }],
      });
    }
    const rows = await claimInTransaction(
      ctx.em,
      ctx,
      input.emails.map((email) => ({ email, daily_limit: TOKEN_LIMITS.claimDailyLimitDefault })),
    );
    const results = rows.map((r) =>
      r.ok
        ? { email: r.value.email, ok: true as const, token: r.value.token, token_id: r.value.tokenId, rotated: r.value.rotated }
        : { email: r.email, ok: false as const, error: r.error.code },
    );
    return { succeeded: results.filter((r) => r.ok).length, failed: results.filter((r) => !r.ok).length, results };
  },
});

export interface ToolsPing {
  ok: true;
  kind: 'tools_claim';
  tools_token_id: string;
  label: string;
  owner: string;
  now: string;
}

export const pingToolsToken = defineOperation<unknown, ToolsPing, InboundTokenPrincipal>({
  name: 'tokens.ping_tools',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'request',
  idempotent: false,
  input: z.unknown(),
  handler: async (_input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    return {
      ok: true,
      kind: 'tools_claim',
      tools_token_id: ctx.principal.tokenId,
      label: ctx.principal.label,
      owner: ctx.principal.userEmail,
      now: ctx.clock.now().toISOString(),
    };
  },
});
