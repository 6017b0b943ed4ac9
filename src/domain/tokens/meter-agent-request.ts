// One JSON-RPC request at /mcp that runs no operation of its own (initialize, tools/list, ping,
// an unknown method or tool, ...), or a POST holding no request at all: does nothing but count
// against the token's windows, exactly as a tool call does (SPEC Limits "Agent rate").
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { AgentSessionInput } from './open-agent-session.js';

export const agentRequest = defineOperation<z.infer<typeof AgentSessionInput>, null, AgentPrincipal>({
  name: 'agent.request',
  auth: { kind: 'agent' },
  budget: 'agent',
  idempotent: false,
  input: AgentSessionInput,
  handler: async () => null,
});
