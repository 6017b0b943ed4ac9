import type { EntityManager } from '@mikro-orm/core';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { listItemRows } from './catalog.repository.js';
import type { AssetType } from './catalog.rules.js';
import { ListCatalogItemsInput, toCatalogItemView, type CatalogItemListResponse, type CatalogItemView } from './catalog-items.schemas.js';
import { AUTH } from './catalog-items.shared.js';

export interface CatalogItemFilter {
  active_only: boolean;
  category?: string;
  type?: AssetType;
  integrator_slug?: string;
  limit: number;
}

/** Ordered by display_order then name; totalCount covers every matching row. */
export async function listItems(em: EntityManager, input: CatalogItemFilter): Promise<{ items: CatalogItemView[]; totalCount: number }> {
  const { rows, totalCount } = await listItemRows(em, input);
  return { items: rows.map(toCatalogItemView), totalCount };
}

export const listCatalogItems = defineOperation<ListCatalogItemsInput, CatalogItemListResponse, InboundTokenPrincipal>({
  name: 'catalog.items.list',
  auth: AUTH,
  budget: 'publish',
  idempotent: false,
  input: ListCatalogItemsInput,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    return { ...(await listItems(ctx.em, input)), requestId: ctx.requestId };
  },
});
