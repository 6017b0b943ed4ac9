// CatalogPortalService.Review: an admin approves or rejects a pending request with an optional
// review note, through the one review core (review-catalog-approval.ts, also behind ReviewApproval
// and approve_team_support_request) and its input schema: approving grants the access, the
// applicant is told the decision, a request reviewed elsewhere meanwhile (or withdrawn) is a
// conflict `not_pending`. Admins only; agent tokens need `admin:approvals`. Audited with the
// reviewer and source `web` or `connect`.
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { callerSource, recordAudit } from '../audit/audit.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { findOwnRequestRow } from './catalog.repository.js';
import { CATALOG_AUDIT } from './catalog.audit.js';
import { CatalogApprovalReviewRequestSchema } from './catalog-approvals.schemas.js';
import { reviewInTransaction } from './review-catalog-approval.js';
import { ownRequestView, PORTAL_SCOPES, type OwnRequestView } from './catalog-portal.schemas.js';

export const reviewCatalogRequest = defineOperation<
  z.infer<typeof CatalogApprovalReviewRequestSchema>,
  { request: OwnRequestView; applicantEmail: string },
  AgentPrincipal
>({
  name: 'catalog.portal.review',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: [PORTAL_SCOPES.review],
  idempotent: true,
  writes: true,
  input: CatalogApprovalReviewRequestSchema,
  handler: async (input, ctx) => {
    const p = ctx.principal;
    requireAdminUser(p);
    const { request, accessAssetId } = await reviewInTransaction(ctx.em, ctx, p.userId, input.request_id, input.decision, input.note);
    recordAudit(ctx.em, ctx, {
      action: input.decision === 'approve' ? CATALOG_AUDIT.requestApproved : CATALOG_AUDIT.requestRejected,
      source: callerSource(ctx),
      actorUserId: p.userId,
      tokenId: p.tokenId,
      targetType: 'catalog_request',
      targetId: request.id,
      summary: { catalog_item_id: request.catalogItemId, user_id: request.userId, access_asset_id: accessAssetId, with_note: request.reviewNote !== null },
    });
    // The view is read with SQL: the review must be written first.
    await ctx.em.flush();
    const row = (await findOwnRequestRow(ctx.em, request.id))!;
    return { request: ownRequestView(row), applicantEmail: row.user_email };
  },
});
