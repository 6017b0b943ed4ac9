// CatalogPortalService.Withdraw: the caller takes back a pending request of their own (stored
// status `withdrawn`; they may apply again). Another person's request answers not_found, exactly
// as an unknown id does. Withdrawing a withdrawn request returns it unchanged (`withdrawn`
// false); one that was reviewed or revoked meanwhile is a conflict `not_pending` saying which.
import { LockMode } from '@mikro-orm/core';
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError, notFound } from '../errors.js';
import { callerSource, recordAudit } from '../audit/audit.js';
import { CatalogRequest } from './catalog.entity.js';
import { findOwnRequestRow } from './catalog.repository.js';
import { notPendingMessage } from './catalog.rules.js';
import { CATALOG_AUDIT } from './catalog.audit.js';
import { ownRequestView, PORTAL_SCOPES, WithdrawOwnRequestInput, type OwnRequestView } from './catalog-portal.schemas.js';

export const withdrawOwnCatalogRequest = defineOperation<
  z.infer<typeof WithdrawOwnRequestInput>,
  { request: OwnRequestView; withdrawn: boolean },
  AgentPrincipal
>({
  name: 'catalog.portal.withdraw',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: [PORTAL_SCOPES.write],
  idempotent: true,
  writes: true,
  input: WithdrawOwnRequestInput,
  handler: async (input, ctx) => {
    const p = ctx.principal;
    const req = await ctx.em.findOne(CatalogRequest, { id: input.request_id, userId: p.userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!req) throw notFound('request');
    const withdrawn = req.status === 'pending';
    if (!withdrawn && req.status !== 'withdrawn') throw new DomainError('conflict', notPendingMessage(req.status), { code: 'not_pending' });
    if (withdrawn) {
      req.status = 'withdrawn';
      req.updatedAt = ctx.clock.now();
      recordAudit(ctx.em, ctx, {
        action: CATALOG_AUDIT.requestWithdrawn,
        source: callerSource(ctx),
        actorUserId: p.userId,
        tokenId: p.tokenId,
        targetType: 'catalog_request',
        targetId: req.id,
        summary: { catalog_item_id: req.catalogItemId },
      });
      await ctx.em.flush();
    }
    return { request: ownRequestView((await findOwnRequestRow(ctx.em, req.id))!), withdrawn };
  },
});
