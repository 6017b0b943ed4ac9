// `ping` (SPEC C read tools): no scope needed; proves the token works and shows whose it is.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { AgentIdentityOutput, agentIdentity, type AgentIdentity } from './agent-identity.view.js';

export const PingInput = z.strictObject({});
export const PingOutput = AgentIdentityOutput;

export const agentPing = defineOperation<z.infer<typeof PingInput>, AgentIdentity, AgentPrincipal>({
  name: 'agent.ping',
  auth: { kind: 'agent' },
  budget: 'agent',
  // No requiredScopes: works with any agent token (SPEC "Agent token scopes", matching rules).
  idempotent: false,
  input: PingInput,
  handler: async (_input, ctx) => agentIdentity(ctx),
});
