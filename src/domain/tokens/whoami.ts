// `whoami` (SPEC C read tools): who the agent token belongs to, and its scopes; no scope needed.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { AgentIdentityOutput, agentIdentity } from './agent-identity.view.js';

export const WhoamiInput = z.strictObject({});
export const WhoamiOutput = AgentIdentityOutput.extend({ scopes: z.array(z.string()) });
export type WhoamiResult = z.infer<typeof WhoamiOutput>;

export const whoami = defineOperation<z.infer<typeof WhoamiInput>, WhoamiResult, AgentPrincipal>({
  name: 'agent.whoami',
  auth: { kind: 'agent' },
  budget: 'agent',
  // No requiredScopes: works with any agent token (SPEC "Agent token scopes", matching rules).
  idempotent: false,
  input: WhoamiInput,
  handler: async (_input, ctx) => ({ ...agentIdentity(ctx), scopes: [...ctx.principal.scopes] }),
});
