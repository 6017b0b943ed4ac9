// The owner issues a personal inbound token for themselves; the value is returned once, with the
// endpoint it publishes to.
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { mintSelfServiceToken, TokenNote } from './create-personal-token.js';
import { ownOp } from './own-tokens.shared.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

const endpointUrl = (ctx: OpContext) => `${ctx.config.publicBaseUrl}/api/internal-os/integrations/inbound/personal`;

export const IssueOwnTokenInput = z.strictObject({
  label: z.string().min(1).max(TOKEN_LIMITS.labelMax),
  note: TokenNote.optional(),
  daily_limit: z.number().int().min(1).max(TOKEN_LIMITS.dailyLimitMax).default(TOKEN_LIMITS.claimDailyLimitDefault),
});

export const issueOwnPersonalToken = defineOperation<
  z.infer<typeof IssueOwnTokenInput>,
  { token_id: string; token_value: string; endpoint_url: string },
  AgentPrincipal
>({
  name: 'tokens.issue_own',
  ...ownOp,
  idempotent: false,
  writes: true,
  input: IssueOwnTokenInput,
  handler: async (input, ctx) => {
    const user = await requireUserByEmail(ctx.em, ctx.principal.userEmail);
    const t = await mintSelfServiceToken(ctx.em, ctx, user, { label: input.label, note: input.note ?? null, dailyLimit: input.daily_limit });
    return { token_id: t.tokenId, token_value: t.token, endpoint_url: endpointUrl(ctx) };
  },
});
