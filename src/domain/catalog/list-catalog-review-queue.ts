// CatalogPortalService.ListPendingRequests: the admins' review queue, oldest first, with the
// applicant, the row, the note and the age (the same queue as list_pending_team_support_requests).
// Admins only (`forbidden_admin_only`); agent tokens need `admin:approvals`.
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { listPendingRequests } from './catalog.repository.js';
import { ListReviewQueueInput, PORTAL_SCOPES, reviewQueueItemView, type ReviewQueueItemView } from './catalog-portal.schemas.js';

export const listCatalogReviewQueue = defineOperation<z.infer<typeof ListReviewQueueInput>, { items: ReviewQueueItemView[] }, AgentPrincipal>({
  name: 'catalog.portal.list_pending',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: [PORTAL_SCOPES.review],
  idempotent: false,
  input: ListReviewQueueInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const now = ctx.clock.now();
    return { items: (await listPendingRequests(ctx.em, {}, input.limit)).map((r) => reviewQueueItemView(r, now)) };
  },
});
