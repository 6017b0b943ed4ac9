import { CatalogItemEnvelopeOutput } from '../../../domain/catalog/catalog-item-tools.shared.js';
import { catalogItemUpdate } from '../../../domain/catalog/update-catalog-item-by-agent.js';
import type { ToolDefinition } from './tool.js';

export const catalogItemUpdateTool: ToolDefinition = {
  name: 'catalog_item_update',
  title: 'Update catalog item (admin)',
  description:
    'Patches a live catalog row addressed by slug or id (exactly one) with the fields of PATCH /api/v1/catalog/items/{slug}: {ok, item}. type is immutable. Admin users only.',
  operation: catalogItemUpdate,
  output: CatalogItemEnvelopeOutput,
  readOnly: false,
};
