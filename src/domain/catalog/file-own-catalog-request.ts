// CatalogPortalService.Apply: the caller applies for a live catalog row (by id or slug, exactly
// one) with an optional note. Through the one apply core (apply-for-catalog-item.ts): a row with
// `approval_required` gets a pending request and the admins are told; one that needs no review is
// approved at once; a second apply while a request is live returns that request (`created`
// false). An archived or unknown row is not_found. Audited with the caller and source `web` (the
// web app) or `connect`.
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { callerSource, recordAudit } from '../audit/audit.js';
import { applyInTransaction } from './apply-for-catalog-item.js';
import { requireLiveItem } from './catalog-approvals.shared.js';
import { catalogRefOf } from './catalog-ref.rules.js';
import { findOwnRequestRow } from './catalog.repository.js';
import { CATALOG_AUDIT } from './catalog.audit.js';
import { FileOwnRequestInput, ownRequestView, PORTAL_SCOPES, type OwnRequestView } from './catalog-portal.schemas.js';

export const fileOwnCatalogRequest = defineOperation<z.infer<typeof FileOwnRequestInput>, { request: OwnRequestView; created: boolean }, AgentPrincipal>({
  name: 'catalog.portal.apply',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: [PORTAL_SCOPES.write],
  idempotent: true,
  writes: true,
  input: FileOwnRequestInput,
  handler: async (input, ctx) => {
    const p = ctx.principal;
    const item = await requireLiveItem(ctx.em, catalogRefOf(input));
    const r = await applyInTransaction(ctx.em, ctx, item, { id: p.userId, email: p.userEmail }, { note: input.note, createdByUserId: p.userId });
    if (r.created) {
      recordAudit(ctx.em, ctx, {
        action: CATALOG_AUDIT.requestFiled,
        source: callerSource(ctx),
        actorUserId: p.userId,
        tokenId: p.tokenId,
        targetType: 'catalog_request',
        targetId: r.requestId,
        summary: { catalog_item_id: item.id, catalog_slug: item.slug, status: r.status, approval_required: item.approval_required },
      });
    }
    // The view is read with SQL: the new request must be written first.
    await ctx.em.flush();
    return { request: ownRequestView((await findOwnRequestRow(ctx.em, r.requestId))!), created: r.created };
  },
});
