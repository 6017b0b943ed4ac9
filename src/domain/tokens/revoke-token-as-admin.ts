// Emergency revoke of any inbound token by an admin (SPEC Authentication 6), with an optional
// reason: audited, and the owner is told in their inbox. Idempotent; the token value is never shown.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { AUDIT, recordAudit } from '../audit/audit.js';
import { addNotification } from '../inbox/notify.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { InboundToken } from './tokens.entity.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

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
