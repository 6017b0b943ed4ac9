// A user creates another agent token (`sk-svc-`) with one of their own: scopes no wider than the
// calling token's, `*` when none are chosen (SPEC "Agent token scopes"). The value is returned once.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { recordAudit } from '../audit/audit.js';
import { AGENT_AUDIT, effectiveScopes, RequestedScopes, requireScopesWithin, SELF_MANAGEMENT_SCOPES } from './agent-tokens.shared.js';
import { insertAgentToken, type AgentTokenCreated } from './create-agent-token.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

export const CreateOwnAgentTokenInput = z.strictObject({
  scopes: RequestedScopes,
  label: z.string().min(1).max(TOKEN_LIMITS.labelMax).default('self-service'),
});

export const createOwnAgentToken = defineOperation<z.infer<typeof CreateOwnAgentTokenInput>, AgentTokenCreated, AgentPrincipal>({
  name: 'agent_tokens.create_own',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: SELF_MANAGEMENT_SCOPES,
  idempotent: false,
  writes: true,
  input: CreateOwnAgentTokenInput,
  handler: async (input, ctx) => {
    const scopes = effectiveScopes(input.scopes);
    requireScopesWithin(ctx.principal.scopes, scopes);
    const created = insertAgentToken(ctx.em, ctx, ctx.principal.userId, scopes, input.label);
    recordAudit(ctx.em, ctx, {
      action: AGENT_AUDIT.tokenCreated,
      actorUserId: ctx.principal.userId,
      tokenId: created.tokenId,
      targetType: 'agent_token',
      targetId: created.tokenId,
      summary: { scopes, by: 'self', via_token_id: ctx.principal.tokenId },
    });
    return created;
  },
});
