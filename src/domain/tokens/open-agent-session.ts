// Authenticates an agent token once per transport request (the MCP surface runs it before any
// JSON-RPC message, so a bad token is one 401 for the whole request). Not rate limited itself:
// each JSON-RPC request that follows counts against the token's windows (meter-agent-request.ts).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';

export const AgentSessionInput = z.strictObject({});

export interface AgentSession {
  tokenId: string;
  userId: string;
  scopes: string[];
}

export const agentSession = defineOperation<z.infer<typeof AgentSessionInput>, AgentSession, AgentPrincipal>({
  name: 'agent.session',
  auth: { kind: 'agent' },
  budget: null,
  idempotent: false,
  input: AgentSessionInput,
  handler: async (_input, ctx) => ({ tokenId: ctx.principal.tokenId, userId: ctx.principal.userId, scopes: [...ctx.principal.scopes] }),
});
