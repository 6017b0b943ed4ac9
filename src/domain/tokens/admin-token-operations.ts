// Admin oversight (SPEC Authentication 6): emergency revoke of any inbound token with a reason
// (audit + owner notified; idempotent) and offboarding (revokes all of a user's tokens).
// Admins never see token values or event content.
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError, notFound } from '../errors.js';
import { AUDIT, recordAudit } from '../audit/audit.js';
import { addNotification } from '../inbox/notify.js';
import { ADMIN_ROLES } from '../users/users.entity.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { revokeEveryTokenOfUser } from './own-tokens.repository.js';
import { listInboundTokensForOversight } from './inbound-tokens.repository.js';
import { iso, isoOrNull } from '../timestamps.js';
import { InboundToken } from './tokens.entity.js';
import { announceAccessChanged } from '../inbox/announce-notification.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { TOKEN_KINDS, TOKEN_LIMITS } from './tokens.limits.js';

export function requireAdminUser(p: AgentPrincipal): void {
  if (!ADMIN_ROLES.includes(p.userRole)) throw new DomainError('forbidden', 'admin only', { code: 'forbidden_admin_only' });
}

/**
 * A change to a user holding `targetRole` (offboarding, a role change): a super admin's account
 * is changed only by a super admin, as `invite_user` grants super_admin only from one.
 */
export function requireRankOver(p: AgentPrincipal, targetRole: string): void {
  if (targetRole === 'super_admin' && p.userRole !== 'super_admin') {
    throw new DomainError('forbidden', 'only a super admin may change or offboard a super admin', { code: 'permission_denied' });
  }
}

export const AdminRevokeInput = z.strictObject({
  token_id: z.uuid({ error: 'must be a UUID' }),
  reason: z.string().max(TOKEN_LIMITS.revokeReasonMax).optional(),
});

export const adminRevokeToken = defineOperation<z.infer<typeof AdminRevokeInput>, { revoked: true }, AgentPrincipal>({
  name: 'tokens.admin_revoke',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:tokens'],
  idempotent: true,
  writes: true,
  input: AdminRevokeInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const em = ctx.em;
    const t = await em.findOne(InboundToken, { id: input.token_id });
    if (!t) throw notFound('token');
    if (t.status === 'revoked') return { revoked: true as const };
    t.status = 'revoked';
    t.revokedAt = ctx.clock.now();
    t.revokedReason = input.reason ?? 'revoked by an admin';
    recordAudit(em, ctx, {
      action: AUDIT.tokenRevokedByAdmin,
      actorUserId: ctx.principal.userId,
      tokenId: t.id,
      targetType: 'inbound_token',
      targetId: t.id,
      summary: { reason: input.reason ?? null, owner_user_id: t.ownerUserId },
    });
    addNotification(em, ctx.clock.now(), {
      userId: t.ownerUserId,
      title: `Your token "${t.label}" was revoked by an admin`,
      summary: input.reason ? `Reason: ${input.reason}` : 'No reason was given.',
      actorUserId: ctx.principal.userId,
    });
    return { revoked: true as const };
  },
});

export const AdminListTokensInput = z.strictObject({
  kind: z.enum(TOKEN_KINDS).optional(),
  include_revoked: z.boolean().default(false),
  limit: z.number().int().min(1).max(TOKEN_LIMITS.listMax).default(TOKEN_LIMITS.listDefault),
});

/** One inbound token as token oversight shows it: never its value, hash, display prefix or callback secret. */
export interface AdminTokenView {
  tokenId: string;
  kind: (typeof TOKEN_KINDS)[number];
  label: string;
  status: string;
  ownerUserId: string;
  ownerEmail: string;
  dailyLimit: number;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  revokedReason: string | null;
}

/** Token oversight (SPEC Authentication 6): every user's inbound tokens with owner and last use. */
export const adminListTokens = defineOperation<z.infer<typeof AdminListTokensInput>, { items: AdminTokenView[] }, AgentPrincipal>({
  name: 'tokens.admin_list',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:tokens'],
  idempotent: false,
  input: AdminListTokensInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const rows = await listInboundTokensForOversight(ctx.em, { kind: input.kind, includeRevoked: input.include_revoked, limit: input.limit });
    return {
      items: rows.map((r) => ({
        tokenId: r.id,
        kind: r.kind,
        label: r.label,
        status: r.status,
        ownerUserId: r.owner_user_id,
        ownerEmail: r.owner_email,
        dailyLimit: r.daily_limit,
        createdAt: iso(r.created_at),
        lastUsedAt: isoOrNull(r.last_used_at),
        revokedAt: isoOrNull(r.revoked_at),
        revokedReason: r.revoked_reason,
      })),
    };
  },
});

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
