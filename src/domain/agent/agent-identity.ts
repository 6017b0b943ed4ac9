// The caller's identity as the agent tools report it (`whoami`, `ping`): the token's user, read
// fresh so a renamed user shows the current name.
import { z } from 'zod';
import type { AgentPrincipal, OpContext } from '../context.js';
import { notFound } from '../errors.js';
import { PREPARED } from '../sql-hints.js';

export const AgentIdentityOutput = z.object({
  userId: z.uuid(),
  email: z.string(),
  name: z.string(),
  role: z.string(),
  now: z.iso.datetime({ offset: true }),
});
export type AgentIdentity = z.infer<typeof AgentIdentityOutput>;

// whoami is the cheapest tool and the throughput yardstick (>= 2,000 calls/s): one prepared
// statement instead of em.findOne, whose query building cost ~0.4 ms of CPU per call here.
const USER_BY_ID = `${PREPARED} select id, email, name, role from users where id = ?`;

export async function loadAgentIdentity(ctx: OpContext<AgentPrincipal>): Promise<AgentIdentity> {
  const rows = (await ctx.em.getConnection().execute(USER_BY_ID, [ctx.principal.userId], 'all', ctx.em.getTransactionContext())) as Array<{ id: string; email: string; name: string; role: string }>;
  const user = rows[0];
  // authenticate() joined the user a moment ago; a missing row means it was deleted since.
  if (!user) throw notFound('user');
  return { userId: user.id, email: user.email, name: user.name, role: user.role, now: ctx.clock.now().toISOString() };
}
