// A user starts a connect session for themselves with their agent token; the token it yields is
// no wider than the calling token.
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { effectiveScopes, requireScopesWithin, SELF_MANAGEMENT_SCOPES } from './agent-tokens.shared.js';
import { beginConnectSession, StartConnectSessionInput, type ConnectSessionStarted } from './connect-session.shared.js';

export const startConnectSession = defineOperation<z.infer<typeof StartConnectSessionInput>, ConnectSessionStarted, AgentPrincipal>({
  name: 'agent_connect.start_own',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: SELF_MANAGEMENT_SCOPES,
  idempotent: false,
  writes: true,
  input: StartConnectSessionInput,
  handler: async (input, ctx) => {
    const scopes = effectiveScopes(input.scopes);
    requireScopesWithin(ctx.principal.scopes, scopes);
    return beginConnectSession(ctx, ctx.principal.userId, scopes, input.label, ctx.principal.userId);
  },
});
