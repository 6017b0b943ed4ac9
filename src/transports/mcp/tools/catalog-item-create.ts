import { CatalogItemEnvelopeOutput } from '../../../domain/catalog/catalog-item-tools.shared.js';
import { catalogItemCreate } from '../../../domain/catalog/create-catalog-item-by-agent.js';
import type { ToolDefinition } from './tool.js';

export const catalogItemCreateTool: ToolDefinition = {
  name: 'catalog_item_create',
  title: 'Create catalog item (admin)',
  description:
    'Creates a catalog row (same body as POST /api/v1/catalog/items: slug, name, type required): {ok, item}. A taken slug answers CONFLICT. Admin users only.',
  operation: catalogItemCreate,
  output: CatalogItemEnvelopeOutput,
  readOnly: false,
  idempotent: false,
};
