import { catalogItemDelete, CatalogItemDeleteOutput } from '../../../domain/catalog/delete-catalog-item-by-agent.js';
import type { ToolDefinition } from './tool.js';

export const catalogItemDeleteTool: ToolDefinition = {
  name: 'catalog_item_delete',
  title: 'Delete catalog item (admin)',
  description:
    'Archives (default) or, with hard true, removes a catalog row addressed by slug or id (exactly one): {ok, mode, slug, item, already_archived}. A hard delete with live approvals, assets or tokens answers CONFLICT with the counts. Admin users only.',
  operation: catalogItemDelete,
  output: CatalogItemDeleteOutput,
  readOnly: false,
  destructive: true,
};
