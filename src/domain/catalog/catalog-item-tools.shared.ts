// What the catalog_item_create, _list, _update and _delete agent tools share (SPEC C "tools named
// without shape"; admin, scope admin:catalog). Their shapes follow REST v1 /api/v1/catalog/items
// and run the same cores (<verb>-catalog-item.ts), except that update and delete address the row
// by `slug` or `id` (exactly one) and the answers carry no requestId.
import { z } from 'zod';
import type { OpContext } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { CatalogItemViewSchema, type CatalogActor, type ItemRef } from './catalog-items.schemas.js';
import { CATALOG_LIMITS } from './catalog.limits.js';

export const common = { auth: { kind: 'agent' } as const, budget: 'agent' as const, requiredScopes: ['admin:catalog'] };

export const actor = (ctx: OpContext<AgentPrincipal>, tool: string): CatalogActor => ({
  userId: ctx.principal.userId,
  role: ctx.principal.userRole,
  tokenId: ctx.principal.tokenId,
  tool,
});

/** Lookups accept any stored slug (old rows may predate the pattern). */
export const itemRefFields = { slug: z.string().min(1).max(CATALOG_LIMITS.slugMax).optional(), id: z.uuid({ error: 'must be a UUID' }).optional() };
export const refOf = (v: { slug?: string; id?: string }): ItemRef => (v.id !== undefined ? { id: v.id } : { slug: v.slug! });

export const CatalogItemEnvelopeOutput = z.object({ ok: z.literal(true), item: CatalogItemViewSchema });
export type ItemEnvelope = z.infer<typeof CatalogItemEnvelopeOutput>;
