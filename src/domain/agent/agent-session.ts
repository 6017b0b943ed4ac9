// Authenticates an agent token once per transport request (the MCP surface runs it before any
// JSON-RPC message, so a bad token is one 401 for the whole request). Not rate limited itself:
// each JSON-RPC request that follows counts against the token's windows, a tool call in its own
// operation, any other request (initialize, tools/list, ping, ...) as one agentRequest.
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

/**
 * One JSON-RPC request at /mcp that runs no operation of its own (initialize, tools/list, ping,
 * an unknown method or tool, ...), or a POST holding no request at all: does nothing but count
 * against the token's windows, exactly as a tool call does (SPEC Limits "Agent rate").
 */
export const agentRequest = defineOperation<z.infer<typeof AgentSessionInput>, null, AgentPrincipal>({
  name: 'agent.request',
  auth: { kind: 'agent' },
  budget: 'agent',
  idempotent: false,
  input: AgentSessionInput,
  handler: async () => null,
});
