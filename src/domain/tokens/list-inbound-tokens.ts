// `list_inbound_tokens` (SPEC C read tools; admin, scope admin:catalog): admin oversight of every
// inbound token (Authentication 6): owner, label, kind and dates, never token values or secrets.
// `linked_catalog_slug`: a tools-token's linked catalog row (else its integrator's row), a
// moderation token's integrator row, a claimed personal token's approval row; otherwise null.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { iso } from '../timestamps.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { listInboundTokensForAdmin } from './inbound-tokens.repository.js';
import { TOKEN_KINDS, TOKEN_LIMITS } from './tokens.limits.js';

export const ListInboundTokensInput = z.strictObject({
  kind: z.enum(TOKEN_KINDS).optional(),
  include_revoked: z.boolean().default(false),
  limit: z.number().int().min(1).max(TOKEN_LIMITS.listMax).default(TOKEN_LIMITS.listDefault),
});

export const InboundTokenListItem = z.object({
  id: z.uuid(),
  label: z.string(),
  kind: z.enum(TOKEN_KINDS),
  status: z.string(),
  owner_email: z.string(),
  created_at: z.iso.datetime(),
  revoked_at: z.iso.datetime().nullable(),
  linked_catalog_slug: z.string().nullable(),
});
export const ListInboundTokensOutput = z.object({ items: z.array(InboundTokenListItem) });
export type ListInboundTokensResult = z.infer<typeof ListInboundTokensOutput>;

export const listInboundTokens = defineOperation<z.infer<typeof ListInboundTokensInput>, ListInboundTokensResult, AgentPrincipal>({
  name: 'agent.list_inbound_tokens',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:catalog'],
  idempotent: false,
  input: ListInboundTokensInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    // Named columns only: the hash, prior hash and callback secret never leave the table.
    const rows = await listInboundTokensForAdmin(ctx.em, { kind: input.kind, includeRevoked: input.include_revoked, limit: input.limit });
    return {
      items: rows.map((r) => ({
        id: r.id,
        label: r.label,
        kind: r.kind,
        status: r.status,
        owner_email: r.owner_email,
        created_at: iso(r.created_at),
        revoked_at: r.revoked_at === null ? null : iso(r.revoked_at),
        linked_catalog_slug: r.linked_catalog_slug,
      })),
    };
  },
});
