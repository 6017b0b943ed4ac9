// `catalog_item_update` (admin, scope admin:catalog): REST's patch (update-catalog-item.ts) for an
// admin's agent token; the row is addressed by `slug` or `id`, and `type` stays immutable.
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { actor, common, itemRefFields, refOf, type ItemEnvelope } from './catalog-item-tools.shared.js';
import { CatalogItemUpdateRequestSchema } from './catalog-items.schemas.js';
import { exactlyOne } from './catalog-ref.rules.js';
import { updateItem } from './update-catalog-item.js';

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
