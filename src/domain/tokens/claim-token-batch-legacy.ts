// The older claim batch (/api/internal-os): at most TOKEN_LIMITS.legacyClaimBatchMax emails (more: 400 emails_too_many), always
// 200 with per-row results.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { claimInTransaction } from './claim.js';
import { requireAdminToolsToken } from './tools-access.rules.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

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
