import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import type { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { CatalogRequest } from './catalog.entity.js';
import { findLiveRequest, lockPair, type CatalogItemRow } from './catalog.repository.js';
import { restApprovalStatus } from './catalog.rules.js';
import { ApplyInput } from './catalog-approvals.schemas.js';
import { requireLiveItem } from './catalog-approvals.shared.js';

/**
 * Files a pending request for `userId` in the caller's transaction, or returns the live one the pair
 * already has (`created` false). `createdByUserId` is the employee, or the admin filing on their
 * behalf.
 */
export async function applyInTransaction(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock'>,
  item: CatalogItemRow,
  userId: string,
  opts: { note?: string | null; createdByUserId: string },
): Promise<{ requestId: string; status: string; created: boolean }> {
  await lockPair(em, userId, item.id);
  const live = await findLiveRequest(em, userId, item.id);
  if (live) return { requestId: live.id, status: live.status, created: false };
  const now = ctx.clock.now();
  const req = em.create(CatalogRequest, {
    id: randomUUID(),
    userId,
    catalogItemId: item.id,
    status: 'pending',
    note: opts.note ?? null,
    requestedAt: now,
    createdByUserId: opts.createdByUserId,
    updatedAt: now,
  });
  return { requestId: req.id, status: 'pending', created: true };
}

/** An employee's application (operator CLI until the web flow exists): a pending request. */
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
    const r = await applyInTransaction(ctx.em, ctx, item, user.id, { note: input.note, createdByUserId: user.id });
    return { requestId: r.requestId, status: restApprovalStatus(r.status) };
  },
});
