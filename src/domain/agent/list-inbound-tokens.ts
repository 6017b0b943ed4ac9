// `list_inbound_tokens` (SPEC C read tools; admin, scope admin:catalog): admin oversight of every
// inbound token (Authentication 6): owner, label, kind and dates, never token values or secrets.
// `linked_catalog_slug`: for a tools-token the catalog row it is linked to (else its integrator's
// row; a moderation token: its integrator's row); for a claimed personal token the row of the approval it was minted under; otherwise null.
import { z } from 'zod';
import { defineOperation, type AgentPrincipal } from '../context.js';
import { iso } from '../timestamps.js';
import { requireAdminUser } from '../tokens/admin-token-operations.js';

export const TOKEN_KINDS = ['personal', 'moderation', 'tools_claim'] as const;
export const LIST_TOKENS_LIMIT = { max: 500, default: 200 } as const;

export const ListInboundTokensInput = z.strictObject({
  kind: z.enum(TOKEN_KINDS).optional(),
  include_revoked: z.boolean().default(false),
  limit: z.number().int().min(1).max(LIST_TOKENS_LIMIT.max).default(LIST_TOKENS_LIMIT.default),
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

interface Row {
  id: string;
  label: string;
  kind: (typeof TOKEN_KINDS)[number];
  status: string;
  owner_email: string;
  created_at: Date | string;
  revoked_at: Date | string | null;
  linked_catalog_slug: string | null;
}

export const listInboundTokens = defineOperation<z.infer<typeof ListInboundTokensInput>, ListInboundTokensResult, AgentPrincipal>({
  name: 'agent.list_inbound_tokens',
  auth: { kind: 'agent' },
  rateLimited: true,
  requiredScopes: ['admin:catalog'],
  idempotent: false,
  input: ListInboundTokensInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    // Named columns only: the hash, prior hash and callback secret never leave the table.
    const rows = (await ctx.em.getConnection().execute(
      `select t.id, t.label, t.kind, t.status, u.email as owner_email, t.created_at, t.revoked_at,
              case when t.kind in ('tools_claim', 'moderation')
                   then coalesce((select c.slug from catalog_items c where c.linked_tools_token_id = t.id order by c.created_at, c.id limit 1),
                                 (select c.slug from catalog_items c where c.integrator_id = t.integrator_id and c.archived_at is null order by c.created_at, c.id limit 1))
                   else (select c.slug from catalog_requests r join catalog_items c on c.id = r.catalog_item_id where r.id = t.approval_id)
              end as linked_catalog_slug
         from inbound_tokens t join users u on u.id = t.owner_user_id
        where (?::varchar is null or t.kind = ?) and (?::boolean or t.status <> 'revoked')
        order by t.created_at desc, t.id limit ?`,
      [input.kind ?? null, input.kind ?? null, input.include_revoked, input.limit],
    )) as Row[];
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
