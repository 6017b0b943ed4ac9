// Authenticates an agent token once per transport request (the MCP surface runs it before any
// JSON-RPC message, so a bad token is one 401 for the whole request). Not rate limited: only the
// tool calls that follow count against the token's windows.
import { z } from 'zod';
import { defineOperation, type AgentPrincipal } from '../context.js';

export const AgentSessionInput = z.strictObject({});

export interface AgentSession {
  tokenId: string;
  userId: string;
  scopes: string[];
}

export const agentSession = defineOperation<z.infer<typeof AgentSessionInput>, AgentSession, AgentPrincipal>({
  name: 'agent.session',
  auth: { kind: 'agent' },
  rateLimited: false,
  idempotent: false,
  input: AgentSessionInput,
  handler: async (_input, ctx) => ({ tokenId: ctx.principal.tokenId, userId: ctx.principal.userId, scopes: [...ctx.principal.scopes] }),
});
