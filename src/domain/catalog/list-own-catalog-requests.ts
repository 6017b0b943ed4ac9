// CatalogPortalService.ListMyRequests: the caller's own catalog requests, newest first, with the
// reviewer's note and dates. Scope `read:catalog` for agent tokens.
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { findOwnRequestRows } from './catalog.repository.js';
import { ListOwnRequestsInput, ownRequestView, PORTAL_SCOPES, type OwnRequestView } from './catalog-portal.schemas.js';

export const listOwnCatalogRequests = defineOperation<z.infer<typeof ListOwnRequestsInput>, { items: OwnRequestView[] }, AgentPrincipal>({
  name: 'catalog.portal.list_own_requests',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: [PORTAL_SCOPES.read],
  idempotent: false,
  input: ListOwnRequestsInput,
  handler: async (input, ctx) => ({ items: (await findOwnRequestRows(ctx.em, ctx.principal.userId, input.limit)).map(ownRequestView) }),
});
