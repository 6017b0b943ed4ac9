// The owner deletes one of their inbound tokens: revoked, permanent, idempotent.
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { AUDIT, recordAudit } from '../audit/audit.js';
import { requireOwnToken } from './own-tokens.repository.js';
import { ownOp, TokenIdInput } from './own-tokens.shared.js';

export const revokeOwnToken = defineOperation<TokenIdInput, { revoked: true }, AgentPrincipal>({
  name: 'tokens.revoke_own',
  ...ownOp,
  idempotent: true,
  writes: true,
  input: TokenIdInput,
  handler: async ({ token_id }, ctx) => {
    const t = await requireOwnToken(ctx.em, ctx.principal.userId, token_id);
    if (t.status !== 'revoked') {
      t.status = 'revoked';
      t.revokedAt = ctx.clock.now();
      t.revokedReason = 'deleted by owner';
      recordAudit(ctx.em, ctx, {
        action: AUDIT.tokenRevoked,
        actorUserId: ctx.principal.userId,
        tokenId: t.id,
        targetType: 'inbound_token',
        targetId: t.id,
        summary: { by: 'owner' },
      });
    }
    return { revoked: true as const };
  },
});
