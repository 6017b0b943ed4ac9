// catalog_item_create, catalog_item_list, catalog_item_update, catalog_item_delete (SPEC C "tools
// named without shape"; admin, scope admin:catalog). The shapes follow REST v1 /api/v1/catalog/items
// (same field names and rules, same cores in catalog/<verb>-catalog-item.ts) with two differences: update and
// delete address the row by `slug` or `id` (exactly one), and answers carry no requestId.
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { ASSET_TYPES } from '../catalog/catalog.rules.js';
import {
  CatalogItemCreateRequestSchema,
  CatalogItemDeleteBlockersSchema,
  CatalogItemUpdateRequestSchema,
  CatalogItemViewSchema,
  type CatalogActor,
  type CatalogItemCreateRequest,
  type CatalogItemDeleteBlockers,
  type ItemRef,
} from '../catalog/catalog-items.schemas.js';
import { createItem } from '../catalog/create-catalog-item.js';
import { deleteItem } from '../catalog/delete-catalog-item.js';
import { listItems } from '../catalog/list-catalog-items.js';
import { updateItem } from '../catalog/update-catalog-item.js';
import { requireAdminUser } from '../tokens/admin-token-operations.js';
import { exactlyOne } from './catalog-ref.rules.js';
import { CATALOG_LIMITS } from '../catalog/catalog.limits.js';
import { TOKEN_LIMITS } from '../tokens/tokens.limits.js';

const common = { auth: { kind: 'agent' } as const, budget: 'agent' as const, requiredScopes: ['admin:catalog'] };

const actor = (ctx: OpContext<AgentPrincipal>, tool: string): CatalogActor => ({
  userId: ctx.principal.userId,
  role: ctx.principal.userRole,
  tokenId: ctx.principal.tokenId,
  tool,
});

/** Lookups accept any stored slug (old rows may predate the pattern). */
const itemRefFields = { slug: z.string().min(1).max(CATALOG_LIMITS.slugMax).optional(), id: z.uuid({ error: 'must be a UUID' }).optional() };
const refOf = (v: { slug?: string; id?: string }): ItemRef => (v.id !== undefined ? { id: v.id } : { slug: v.slug! });

export const CatalogItemEnvelopeOutput = z.object({ ok: z.literal(true), item: CatalogItemViewSchema });
type ItemEnvelope = z.infer<typeof CatalogItemEnvelopeOutput>;

export const catalogItemCreate = defineOperation<CatalogItemCreateRequest, ItemEnvelope, AgentPrincipal>({
  name: 'agent.catalog_item_create',
  ...common,
  idempotent: true,
  writes: true,
  input: CatalogItemCreateRequestSchema,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    return { ok: true as const, item: await createItem(ctx, actor(ctx, 'catalog_item_create'), input) };
  },
});

export const CatalogItemListInput = z.strictObject({
  active_only: z.boolean().default(true),
  category: z.string().min(1).max(CATALOG_LIMITS.categoryMax).optional(),
  type: z.enum(ASSET_TYPES).optional(),
  integrator_slug: z.string().min(1).max(TOKEN_LIMITS.integratorSlugMax).optional(),
  limit: z.number().int().min(1).max(CATALOG_LIMITS.listMax).default(CATALOG_LIMITS.listDefault),
});
export const CatalogItemListOutput = z.object({ items: z.array(CatalogItemViewSchema), totalCount: z.number().int().min(0) });

export const catalogItemList = defineOperation<z.infer<typeof CatalogItemListInput>, z.infer<typeof CatalogItemListOutput>, AgentPrincipal>({
  name: 'agent.catalog_item_list',
  ...common,
  idempotent: false,
  input: CatalogItemListInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    return listItems(ctx.em, input);
  },
});

/** REST's update body, with `slug` as the address instead of an immutable field; `type` stays immutable. */
export const CatalogItemUpdateInput = CatalogItemUpdateRequestSchema.omit({ slug: true }).extend(itemRefFields).superRefine(exactlyOne('slug', 'id'));

export const catalogItemUpdate = defineOperation<z.infer<typeof CatalogItemUpdateInput>, ItemEnvelope, AgentPrincipal>({
  name: 'agent.catalog_item_update',
  ...common,
  idempotent: true,
  writes: true,
  input: CatalogItemUpdateInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const { slug: _slug, id: _id, type: _type, ...patch } = input;
    return { ok: true as const, item: await updateItem(ctx, actor(ctx, 'catalog_item_update'), refOf(input), patch) };
  },
});

export const CatalogItemDeleteInput = z.strictObject({ ...itemRefFields, hard: z.boolean().default(false) }).superRefine(exactlyOne('slug', 'id'));
export const CatalogItemDeleteOutput = z.object({
  ok: z.literal(true),
  mode: z.enum(['soft', 'hard']),
  slug: z.string().nullable(),
  item: CatalogItemViewSchema.nullable(),
  already_archived: z.boolean(),
});

const countsText = (b: CatalogItemDeleteBlockers) => `liveApprovals ${b.liveApprovals}, liveAssets ${b.liveAssets}, liveTokens ${b.liveTokens}`;

export const catalogItemDelete = defineOperation<z.infer<typeof CatalogItemDeleteInput>, z.infer<typeof CatalogItemDeleteOutput>, AgentPrincipal>({
  name: 'agent.catalog_item_delete',
  ...common,
  idempotent: true,
  writes: true,
  input: CatalogItemDeleteInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    try {
      return { ok: true as const, ...(await deleteItem(ctx, actor(ctx, 'catalog_item_delete'), refOf(input), input.hard)) };
    } catch (err) {
      // The flat tool error is one string: the blocker counts go into it.
      const blockers = err instanceof DomainError && err.code === 'delete_blocked' ? CatalogItemDeleteBlockersSchema.safeParse(err.extra.blockers) : undefined;
      if (err instanceof DomainError && blockers?.success) {
        throw new DomainError('conflict', `${err.message} (${countsText(blockers.data)})`, { code: err.code, extra: err.extra });
      }
      throw err;
    }
  },
});
