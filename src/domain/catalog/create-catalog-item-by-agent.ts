// `catalog_item_create` (admin, scope admin:catalog): REST's create (create-catalog-item.ts) for
// an admin's agent token, audited with the tool's name.
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { actor, common, type ItemEnvelope } from './catalog-item-tools.shared.js';
import { CatalogItemCreateRequestSchema, type CatalogItemCreateRequest } from './catalog-items.schemas.js';
import { createItem } from './create-catalog-item.js';

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
