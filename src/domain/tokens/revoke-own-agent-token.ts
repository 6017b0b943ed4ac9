// A user revokes one of their own agent tokens: immediate, as agent tokens have no grace window
// and the runner keeps no token cache (SPEC Authentication 5). Another user's token is not found.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { announceAccessChanged } from '../inbox/announce-notification.js';
import { AGENT_AUDIT, SELF_MANAGEMENT_SCOPES } from './agent-tokens.shared.js';
import { AgentToken } from './tokens.entity.js';

export const RevokeOwnAgentTokenInput = z.strictObject({ token_id: z.uuid({ error: 'must be a UUID' }) });

export const revokeOwnAgentToken = defineOperation<z.infer<typeof RevokeOwnAgentTokenInput>, { revoked: true }, AgentPrincipal>({
  name: 'agent_tokens.revoke_own',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: SELF_MANAGEMENT_SCOPES,
  idempotent: true,
  writes: true,
  input: RevokeOwnAgentTokenInput,
  handler: async ({ token_id }, ctx) => {
    // Another user's token id is simply not found: existence is not revealed.
    const t = await ctx.em.findOne(AgentToken, { id: token_id, userId: ctx.principal.userId });
    if (!t) throw notFound('token');
    if (t.revokedAt === null || t.revokedAt === undefined) {
      t.revokedAt = ctx.clock.now();
      recordAudit(ctx.em, ctx, {
        action: AGENT_AUDIT.tokenRevoked,
        actorUserId: ctx.principal.userId,
        tokenId: t.id,
        targetType: 'agent_token',
        targetId: t.id,
        summary: { by: 'self', via_token_id: ctx.principal.tokenId },
      });
      // A live inbox watched with this token ends now, not at its next heartbeat.
      announceAccessChanged(ctx, t.userId);
    }
    return { revoked: true as const };
  },
});
