import { LockMode, type EntityManager } from '@mikro-orm/core';
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError, notFound } from '../errors.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { CatalogRequest } from './catalog.entity.js';
import { notPendingMessage } from './catalog.rules.js';
import { findItemById } from './catalog.repository.js';
import { noticeOfDecision, type NoticeContext } from './catalog-request-notices.js';
import { CatalogApprovalReviewRequestSchema, type CatalogApprovalListItem } from './catalog-approvals.schemas.js';
import { grantAsset, loadView } from './catalog-approvals.shared.js';

/**
 * Approve or reject a pending request in the caller's transaction: the one set of review rules of
 * the REST review, ReviewApproval, CatalogPortalService.Review and the agent tool
 * `approve_team_support_request`. Returns the access asset created by an approval. The applicant
 * is told the decision in their inbox. A request that is no longer pending (reviewed elsewhere
 * meanwhile, withdrawn, revoked) is a conflict `not_pending` saying which. The changes are in the
 * unit of work: flush before reading them back with SQL.
 */
export async function reviewInTransaction(
  em: EntityManager,
  ctx: NoticeContext,
  actorUserId: string,
  requestId: string,
  decision: 'approve' | 'reject',
  note?: string,
): Promise<{ request: CatalogRequest; accessAssetId: string | null }> {
  const req = await em.findOne(CatalogRequest, { id: requestId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!req) throw notFound('request');
  if (req.status !== 'pending') throw new DomainError('conflict', notPendingMessage(req.status), { code: 'not_pending' });
  const now = ctx.clock.now();
  req.status = decision === 'approve' ? 'approved' : 'rejected';
  req.reviewedAt = now;
  req.reviewedByUserId = actorUserId;
  req.reviewNote = note || null;
  req.updatedAt = now;
  const accessAssetId = decision === 'approve' ? grantAsset(em, now, req) : null;
  const item = await findItemById(em, req.catalogItemId);
  noticeOfDecision(em, ctx, { applicantUserId: req.userId, itemName: item!.name, decision, reviewNote: req.reviewNote, reviewerUserId: actorUserId });
  return { request: req, accessAssetId };
}

export const reviewCatalogApproval = defineOperation<z.infer<typeof CatalogApprovalReviewRequestSchema>, CatalogApprovalListItem, InboundTokenPrincipal>({
  name: 'catalog.approvals.review',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  idempotent: true,
  writes: true,
  input: CatalogApprovalReviewRequestSchema,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const { request } = await reviewInTransaction(ctx.em, ctx, ctx.principal.userId, input.request_id, input.decision, input.note);
    // The view is read with SQL: the review must be written first.
    await ctx.em.flush();
    return loadView(ctx.em, request.id);
  },
});
