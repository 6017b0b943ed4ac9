// The caller's identity as the agent tools report it (`whoami`, `ping`): the token's user, read
// fresh so a renamed user shows the current name.
import { z } from 'zod';
import type { AgentPrincipal, OpContext } from '../context.js';
import { notFound } from '../errors.js';
import { User } from '../users/users.entity.js';

export const AgentIdentityOutput = z.object({
  userId: z.uuid(),
  email: z.string(),
  name: z.string(),
  role: z.string(),
  now: z.iso.datetime({ offset: true }),
});
export type AgentIdentity = z.infer<typeof AgentIdentityOutput>;

export async function loadAgentIdentity(ctx: OpContext<AgentPrincipal>): Promise<AgentIdentity> {
  const user = await ctx.em.findOne(User, { id: ctx.principal.userId });
  // authenticate() joined the user a moment ago; a missing row means it was deleted since.
  if (!user) throw notFound('user');
  return { userId: user.id, email: user.email, name: user.name, role: user.role, now: ctx.clock.now().toISOString() };
}
