// Offboarding by an admin (SPEC Authentication 6): the user is marked offboarded and every inbound
// and agent token they hold is revoked in the same transaction; their live inboxes end at once.
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { AUDIT, recordAudit } from '../audit/audit.js';
import { announceAccessChanged } from '../inbox/announce-notification.js';
import { revokeEveryTokenOfUser } from '../tokens/own-tokens.repository.js';
import { requireAdminUser, requireRankOver } from './admin-role.rules.js';
import { requireUserByEmail } from './users.repository.js';
import { USER_LIMITS } from './users.limits.js';

/** Revokes every inbound and agent token of a user in the caller's transaction. */
export async function revokeAllTokensOf(
  em: Parameters<typeof recordAudit>[0],
  ctx: Pick<OpContext, 'clock' | 'surface' | 'requestId'>,
  userId: string,
  actorUserId: string | null,
  reason: string,
): Promise<number> {
  const { inboundIds, agentCount } = await revokeEveryTokenOfUser(em, userId, reason, ctx.clock.now().toISOString());
  for (const id of inboundIds)
    recordAudit(em, ctx, { action: AUDIT.tokenRevoked, actorUserId, tokenId: id, targetType: 'inbound_token', targetId: id, summary: { reason } });
  return inboundIds.length + agentCount;
}

export const OffboardInput = z.strictObject({ email: z.email().max(USER_LIMITS.emailMax) });

export const offboardUser = defineOperation<z.infer<typeof OffboardInput>, { userId: string; status: 'offboarded'; tokensRevoked: number }, AgentPrincipal>({
  name: 'users.offboard',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:users'],
  idempotent: true,
  writes: true,
  input: OffboardInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const user = await requireUserByEmail(ctx.em, input.email);
    if (user.id === ctx.principal.userId) throw new DomainError('conflict', 'you cannot offboard yourself', { code: 'invalid_state' });
    // Nobody acts above their own rank: offboarding a super admin takes a super admin.
    requireRankOver(ctx.principal, user.role);
    user.status = 'offboarded';
    user.updatedAt = ctx.clock.now();
    const tokensRevoked = await revokeAllTokensOf(ctx.em, ctx, user.id, ctx.principal.userId, 'owner offboarded');
    // The user's live inboxes (web sessions, agent tokens) end now, not at their next heartbeat.
    announceAccessChanged(ctx, user.id);
    return { userId: user.id, status: 'offboarded' as const, tokensRevoked };
  },
});
