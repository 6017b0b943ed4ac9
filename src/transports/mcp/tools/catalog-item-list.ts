import { catalogItemList, CatalogItemListOutput } from '../../../domain/catalog/list-catalog-items-by-agent.js';
import type { ToolDefinition } from './tool.js';
import { CATALOG_LIMITS } from '../../../domain/catalog/catalog.limits.js';

export const catalogItemListTool: ToolDefinition = {
  name: 'catalog_item_list',
  title: 'List catalog items (admin)',
  description: `Catalog rows ordered by display_order then name: {items, totalCount}. Filters: active_only (default true), category, type, integrator_slug; limit 1-${CATALOG_LIMITS.listMax} (default ${CATALOG_LIMITS.listDefault}). Admin users only.`,
  operation: catalogItemList,
  output: CatalogItemListOutput,
  readOnly: true,
};
