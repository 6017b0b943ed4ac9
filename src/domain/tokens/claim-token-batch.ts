// POST /api/v1/tokens/claim/batch: mint or rotate personal tokens for up to 100 employees in one
// transaction, each row answered on its own.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { claimInTransaction } from './claim.js';
import { ClaimTokenRequestSchema } from './claim-token.rules.js';
import { requireAdminToolsToken } from './tools-access.rules.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

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
