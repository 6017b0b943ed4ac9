import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import type { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { CatalogRequest } from './catalog.entity.js';
import { approvePendingRequest, findLiveRequest, lockPair, type CatalogItemRow } from './catalog.repository.js';
import { CatalogApprovalAssignRequestSchema, type CatalogApprovalListItem } from './catalog-approvals.schemas.js';
import { grantAsset, loadView, requireLiveItem } from './catalog-approvals.shared.js';

export interface AssignOptions {
  /** Stored on a new request row (default: "assigned by an admin"). */
  note?: string;
  /**
   * Agent tool rule (SPEC "Catalog approval status"): a pending row is reused as it is and reported
   * idempotent. The REST assign approves a pending row instead.
   */
  reusePending?: boolean;
}

export interface AssignOutcome {
  requestId: string;
  idempotent: boolean;
  /** Stored (agent-side) status after the call. */
  status: string;
}

/**
 * Approve-or-create in the caller's transaction (a writing operation's `em`); reused by the agent
 * tool `assign_catalog_to_employee`.
 */
export async function assignInTransaction(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock'>,
  actorUserId: string,
  item: CatalogItemRow,
  userId: string,
  opts: AssignOptions = {},
): Promise<AssignOutcome> {
  await lockPair(em, userId, item.id);
  const now = ctx.clock.now();
  const live = await findLiveRequest(em, userId, item.id);
  if (live && (live.status !== 'pending' || opts.reusePending)) return { requestId: live.id, idempotent: true, status: live.status };
  if (live) {
    await approvePendingRequest(em, live.id, actorUserId, now);
    grantAsset(em, now, { id: live.id, userId, catalogItemId: item.id });
    return { requestId: live.id, idempotent: false, status: 'approved' };
  }
  const req = em.create(CatalogRequest, {
    id: randomUUID(),
    userId,
    catalogItemId: item.id,
    status: 'approved',
    note: opts.note ?? 'assigned by an admin',
    requestedAt: now,
    reviewedAt: now,
    reviewedByUserId: actorUserId,
    createdByUserId: actorUserId,
    updatedAt: now,
  });
  // Scalar foreign keys: the request row must exist before its asset (one flush would insert the
  // asset first).
  await em.flush();
  grantAsset(em, now, { id: req.id, userId, catalogItemId: item.id });
  return { requestId: req.id, idempotent: false, status: 'approved' };
}

export const assignCatalogApproval = defineOperation<z.infer<typeof CatalogApprovalAssignRequestSchema>, CatalogApprovalListItem, InboundTokenPrincipal>({
  name: 'catalog.approvals.assign',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  idempotent: true,
  writes: true,
  input: CatalogApprovalAssignRequestSchema,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const item = await requireLiveItem(ctx.em, input.catalog_slug);
    const user = await requireUserByEmail(ctx.em, input.email);
    const { requestId } = await assignInTransaction(ctx.em, ctx, ctx.principal.userId, item, user.id);
    return loadView(ctx.em, requestId);
  },
});
