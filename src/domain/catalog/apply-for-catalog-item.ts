import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { CatalogRequest } from './catalog.entity.js';
import { findLiveRequest, lockPair, type CatalogItemRow } from './catalog.repository.js';
import { restApprovalStatus } from './catalog.rules.js';
import { ApplyInput } from './catalog-approvals.schemas.js';
import { grantAsset, requireLiveItem } from './catalog-approvals.shared.js';
import { alertReviewers, type NoticeContext } from './catalog-request-notices.js';

/**
 * Files a request for `userId` in the caller's transaction, or returns the live one the pair
 * already has (`created` false: one live request per user and row). A row with
 * `approval_required` true gets a pending request, and the admins are told it waits for review; a
 * row that needs no review is approved at once, with its access asset (SPEC CatalogItem
 * `approval_required`). `createdByUserId` is the employee, or the admin filing on their behalf.
 */
export async function applyInTransaction(
  em: EntityManager,
  ctx: NoticeContext,
  item: CatalogItemRow,
  applicant: { id: string; email: string },
  opts: { note?: string | null; createdByUserId: string },
): Promise<{ requestId: string; status: string; created: boolean }> {
  await lockPair(em, applicant.id, item.id);
  const live = await findLiveRequest(em, applicant.id, item.id);
  if (live) return { requestId: live.id, status: live.status, created: false };
  const now = ctx.clock.now();
  const approved = !item.approval_required;
  const req = em.create(CatalogRequest, {
    id: randomUUID(),
    userId: applicant.id,
    catalogItemId: item.id,
    status: approved ? 'approved' : 'pending',
    note: opts.note || null,
    requestedAt: now,
    reviewedAt: approved ? now : null,
    createdByUserId: opts.createdByUserId,
    updatedAt: now,
  });
  if (approved) {
    // Scalar foreign keys: the request row must exist before its asset.
    await em.flush();
    grantAsset(em, now, req);
  } else {
    await alertReviewers(em, ctx, {
      itemId: item.id,
      itemName: item.name,
      applicantUserId: applicant.id,
      applicantEmail: applicant.email,
      filedByUserId: opts.createdByUserId,
    });
  }
  return { requestId: req.id, status: req.status, created: true };
}

/** An employee's application through the operator CLI (`catalog apply`); people use CatalogPortalService.Apply. */
export const applyForCatalogItem = defineOperation<z.infer<typeof ApplyInput>, { requestId: string; status: string }>({
  name: 'catalog.requests.create',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: ApplyInput,
  handler: async (input, ctx) => {
    const item = await requireLiveItem(ctx.em, input.catalog_slug);
    const user = await requireUserByEmail(ctx.em, input.email);
    const r = await applyInTransaction(ctx.em, ctx, item, user, { note: input.note, createdByUserId: user.id });
    return { requestId: r.requestId, status: restApprovalStatus(r.status) };
  },
});
