// Token oversight by an admin (SPEC Authentication 6): every user's inbound tokens with owner,
// state and last use; never a token value, hash, display prefix or callback secret.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { iso, isoOrNull } from '../timestamps.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { listInboundTokensForOversight } from './inbound-tokens.repository.js';
import { TOKEN_KINDS, TOKEN_LIMITS } from './tokens.limits.js';

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
