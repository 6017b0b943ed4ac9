// The owner rotates one of their active inbound tokens: the new value works at once, the previous
// one for 24 h more, and the token gets a new callback secret.
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { AUDIT, recordAudit } from '../audit/audit.js';
import { requireOwnToken } from './own-tokens.repository.js';
import { ownOp, TokenIdInput } from './own-tokens.shared.js';
import { rotateTokenValue } from './rotate-token.js';

export const rotateOwnToken = defineOperation<TokenIdInput, { tokenId: string; token: string; expiresPriorAt: string; callbackSecret: string }, AgentPrincipal>(
  {
    name: 'tokens.rotate_own',
    ...ownOp,
    idempotent: false,
    writes: true,
    input: TokenIdInput,
    handler: async ({ token_id }, ctx) => {
      const t = await requireOwnToken(ctx.em, ctx.principal.userId, token_id);
      if (t.status !== 'active') throw new DomainError('conflict', `token is ${t.status}`, { code: 'invalid_state' });
      const now = ctx.clock.now();
      const token = rotateTokenValue(t, now);
      recordAudit(ctx.em, ctx, {
        action: AUDIT.tokenRotated,
        actorUserId: ctx.principal.userId,
        tokenId: t.id,
        targetType: 'inbound_token',
        targetId: t.id,
        summary: { by: 'owner' },
      });
      return { tokenId: t.id, token, expiresPriorAt: t.priorValidUntil!.toISOString(), callbackSecret: t.callbackSecret };
    },
  },
);
