// `catalog_item_list` (admin, scope admin:catalog): REST's list (list-catalog-items.ts) for an
// admin's agent token, with the same filters and page size.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { common } from './catalog-item-tools.shared.js';
import { CatalogItemViewSchema } from './catalog-items.schemas.js';
import { ASSET_TYPES } from './catalog.rules.js';
import { listItems } from './list-catalog-items.js';
import { CATALOG_LIMITS } from './catalog.limits.js';
import { TOKEN_LIMITS } from '../tokens/tokens.limits.js';

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
