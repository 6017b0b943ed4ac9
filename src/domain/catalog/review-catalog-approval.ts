import { LockMode, type EntityManager } from '@mikro-orm/core';
import type { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError, notFound } from '../errors.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { CatalogRequest } from './catalog.entity.js';
import { restApprovalStatus } from './catalog.rules.js';
import { CatalogApprovalReviewRequestSchema, type CatalogApprovalListItem } from './catalog-approvals.schemas.js';
import { grantAsset, loadView } from './catalog-approvals.shared.js';

/**
 * Approve or reject a pending request in the caller's transaction (REST review and the agent tool
 * `approve_team_support_request`). Returns the access asset created by an approval. The changes
 * are in the unit of work: flush before reading them back with SQL.
 */
export async function reviewInTransaction(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock'>,
  actorUserId: string,
  requestId: string,
  decision: 'approve' | 'reject',
  note?: string,
): Promise<{ request: CatalogRequest; accessAssetId: string | null }> {
  const req = await em.findOne(CatalogRequest, { id: requestId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!req) throw notFound('request');
  if (req.status !== 'pending') throw new DomainError('conflict', `request is ${restApprovalStatus(req.status)}, not pending`, { code: 'not_pending' });
  const now = ctx.clock.now();
  req.status = decision === 'approve' ? 'approved' : 'rejected';
  req.reviewedAt = now;
  req.reviewedByUserId = actorUserId;
  req.reviewNote = note ?? null;
  req.updatedAt = now;
  const accessAssetId = decision === 'approve' ? grantAsset(em, now, req) : null;
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
