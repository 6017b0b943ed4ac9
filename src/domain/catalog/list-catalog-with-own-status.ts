// CatalogPortalService.ListCatalog: the live catalog (archived rows never) grouped by category,
// each row with the caller's own status for it and the request that status comes from. Any
// signed-in person: a web session, or an agent token with `read:catalog`.
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { findCatalogWithOwnRequests } from './catalog.repository.js';
import { groupByCategory } from './catalog.rules.js';
import { CATALOG_LIMITS } from './catalog.limits.js';
import { catalogEntryView, ListCatalogInput, PORTAL_SCOPES, type CatalogGroupView } from './catalog-portal.schemas.js';

export const listCatalogWithOwnStatus = defineOperation<z.infer<typeof ListCatalogInput>, { groups: CatalogGroupView[] }, AgentPrincipal>({
  name: 'catalog.portal.list_catalog',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: [PORTAL_SCOPES.read],
  idempotent: false,
  input: ListCatalogInput,
  handler: async (_input, ctx) => {
    const rows = await findCatalogWithOwnRequests(ctx.em, ctx.principal.userId, CATALOG_LIMITS.portalRowsMax);
    return {
      groups: groupByCategory(rows).map((g) => ({ category: g.category, display: g.display, entries: g.rows.map(catalogEntryView) })),
    };
  },
});
