// The caller's identity as the agent tools report it (`whoami`, `ping`): the token's user as
// authenticate() read it for this very request (token and user in one statement), so a renamed
// user shows the current name and the tools need no statement of their own.
import { z } from 'zod';
import type { OpContext } from '../context.js';
import type { AgentPrincipal } from '../principal.js';

export const AgentIdentityOutput = z.object({
  userId: z.uuid(),
  email: z.string(),
  name: z.string(),
  role: z.string(),
  now: z.iso.datetime({ offset: true }),
});
export type AgentIdentity = z.infer<typeof AgentIdentityOutput>;

export function agentIdentity(ctx: OpContext<AgentPrincipal>): AgentIdentity {
  const p = ctx.principal;
  return { userId: p.userId, email: p.userEmail, name: p.userName, role: p.userRole, now: ctx.clock.now().toISOString() };
}
