import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { listApprovalViews } from './catalog.repository.js';
import { storedStatusesFor } from './catalog.rules.js';
import { ListApprovalsInput, toView, type CatalogApprovalListItem } from './catalog-approvals.schemas.js';

export const listCatalogApprovals = defineOperation<
  z.infer<typeof ListApprovalsInput>,
  { items: CatalogApprovalListItem[]; requestId: string },
  InboundTokenPrincipal
>({
  name: 'catalog.approvals.list',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  idempotent: false,
  input: ListApprovalsInput,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const rows = await listApprovalViews(ctx.em, {
      email: input.email?.toLowerCase(),
      catalogSlug: input.catalog_slug,
      statuses: input.status ? storedStatusesFor(input.status) : undefined,
    });
    return { items: rows.map(toView), requestId: ctx.requestId };
  },
});
