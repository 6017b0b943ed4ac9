import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { findItemBySlug } from './catalog.repository.js';
import { GetCatalogItemInput, toCatalogItemView, type CatalogItemEnvelope } from './catalog-items.schemas.js';
import { AUTH, missing } from './catalog-items.shared.js';

export const getCatalogItem = defineOperation<z.infer<typeof GetCatalogItemInput>, CatalogItemEnvelope, InboundTokenPrincipal>({
  name: 'catalog.items.get',
  auth: AUTH,
  budget: 'publish',
  idempotent: false,
  input: GetCatalogItemInput,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const row = await findItemBySlug(ctx.em, input.slug);
    if (!row || row.archived_at !== null) throw missing(input.slug);
    return { ok: true, item: toCatalogItemView(row), requestId: ctx.requestId };
  },
});
