// POST /api/v1/tokens/claim and the older /claim: mint or rotate one employee's personal token.
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { claimOne, type ClaimOutcome } from './claim.js';
import { ClaimTokenRequestSchema, type ClaimTokenRequest } from './claim-token.rules.js';
import { requireAdminToolsToken } from './tools-access.rules.js';

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
