import type { EntityManager } from '@mikro-orm/core';
import type { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { AUDIT, recordAudit } from '../audit/audit.js';
import { addNotification } from '../inbox/notify.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { findItemBySlug, findLiveApproval, lockPair, revokeApprovalCascade, type CatalogItemRow, type RequestRow } from './catalog.repository.js';
import { RevokeApprovalInput } from './catalog-approvals.schemas.js';

export interface RevokeOutcome {
  revoked: boolean;
  tokensInvalidated: number;
  approvalId: string | null;
}

/**
 * Revoke in the caller's transaction; an idempotent repeat changes nothing and notifies no one. With
 * `onlyApprovalId` (the agent tool addressed by `approval_id`) only that request is revoked: when
 * it is no longer the live approval of the pair, the call is a no-op.
 */
export async function revokeInTransaction(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock' | 'surface' | 'requestId' | 'config'>,
  actorUserId: string,
  item: CatalogItemRow,
  userId: string,
  notify: boolean,
  onlyApprovalId?: string,
): Promise<RevokeOutcome> {
  await lockPair(em, userId, item.id);
  const approval: RequestRow | undefined = await findLiveApproval(em, userId, item.id);
  if (!approval || (onlyApprovalId !== undefined && approval.id !== onlyApprovalId)) return { revoked: false, tokensInvalidated: 0, approvalId: null };
  const now = ctx.clock.now().toISOString();
  const tokenIds = await revokeApprovalCascade(em, approval.id, now);
  for (const id of tokenIds)
    recordAudit(em, ctx, {
      action: AUDIT.tokenRevoked,
      actorUserId,
      tokenId: id,
      targetType: 'inbound_token',
      targetId: id,
      summary: { reason: 'catalog approval revoked', approval_id: approval.id },
    });
  if (notify) {
    addNotification(em, ctx.clock.now(), {
      userId,
      title: `🔒 ${item.name}: access revoked`,
      summary: 'An admin revoked your access to this catalog item.',
      targetUrl: `${ctx.config.publicBaseUrl}/team-support?tab=assets`,
      actorUserId,
    });
  }
  return { revoked: true, tokensInvalidated: tokenIds.length, approvalId: approval.id };
}

export const revokeCatalogApproval = defineOperation<
  z.infer<typeof RevokeApprovalInput>,
  { revoked: boolean; tokensInvalidated: number },
  InboundTokenPrincipal
>({
  name: 'catalog.approvals.revoke',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  idempotent: true,
  writes: true,
  input: RevokeApprovalInput,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const item = await findItemBySlug(ctx.em, input.catalog_slug);
    if (!item) throw notFound(`catalog item "${input.catalog_slug}"`);
    const user = await requireUserByEmail(ctx.em, input.email);
    const r = await revokeInTransaction(ctx.em, ctx, ctx.principal.userId, item, user.id, input.notify_employee);
    return { revoked: r.revoked, tokensInvalidated: r.tokensInvalidated };
  },
});
