// `revoke_catalog_approval` (SPEC C write tools; admin, scope admin:approvals): the REST revoke
// core (revoke-catalog-approval.ts), addressed by (catalog_slug and email) or by approval_id. A real
// change notifies the employee unless notify_employee is false and invalidates the personal tokens
// minted under the approval; an idempotent repeat changes nothing and never notifies.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { requireItem } from './catalog-approvals.shared.js';
import { revokeInTransaction } from './revoke-catalog-approval.js';
import { CatalogRequest } from './catalog.entity.js';
import type { CatalogItemRow } from './catalog.repository.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { CATALOG_LIMITS } from './catalog.limits.js';

export const RevokeCatalogApprovalInput = z
  .strictObject({
    catalog_slug: z.string().min(1).max(CATALOG_LIMITS.slugMax).optional(),
    email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax).optional(),
    approval_id: z.uuid({ error: 'must be a UUID' }).optional(),
    notify_employee: z.boolean().default(true),
  })
  .superRefine((v, c) => {
    const pair = v.catalog_slug !== undefined || v.email !== undefined;
    if (pair && v.approval_id !== undefined) {
      c.addIssue({ code: 'custom', path: ['approval_id'], message: 'give (catalog_slug and email) or approval_id, not both', params: { code: 'exactly_one' } });
    } else if (!pair && v.approval_id === undefined) {
      c.addIssue({ code: 'custom', path: ['approval_id'], message: 'give (catalog_slug and email) or approval_id', params: { code: 'exactly_one' } });
    } else if (pair && (v.catalog_slug === undefined || v.email === undefined)) {
      const missing = v.catalog_slug === undefined ? 'catalog_slug' : 'email';
      c.addIssue({ code: 'custom', path: [missing], message: 'catalog_slug and email go together', params: { code: 'required' } });
    }
  });

export const RevokeCatalogApprovalOutput = z.object({
  revoked: z.boolean(),
  tokens_invalidated: z.number().int().min(0),
  addressedBy: z.enum(['slug+email', 'approval_id']),
  approval_id: z.uuid().nullable(),
});
export type RevokeCatalogApprovalResult = z.infer<typeof RevokeCatalogApprovalOutput>;

export const adminRevokeCatalogApproval = defineOperation<z.infer<typeof RevokeCatalogApprovalInput>, RevokeCatalogApprovalResult, AgentPrincipal>({
  name: 'agent.revoke_catalog_approval',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:approvals'],
  idempotent: true,
  writes: true,
  input: RevokeCatalogApprovalInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const em = ctx.em;
    let target: { item: CatalogItemRow; userId: string; approvalId?: string };
    if (input.approval_id !== undefined) {
      const req = await em.findOne(CatalogRequest, { id: input.approval_id });
      if (!req) throw notFound('approval');
      target = { item: await requireItem(em, { id: req.catalogItemId }), userId: req.userId, approvalId: req.id };
    } else {
      const item = await requireItem(em, { slug: input.catalog_slug! });
      target = { item, userId: (await requireUserByEmail(em, input.email!)).id };
    }
    const { item } = target;
    const r = await revokeInTransaction(em, ctx, ctx.principal.userId, item, target.userId, input.notify_employee, target.approvalId);
    const addressedBy = target.approvalId !== undefined ? ('approval_id' as const) : ('slug+email' as const);
    const approvalId = r.approvalId ?? target.approvalId ?? null;
    recordToolAudit(em, ctx, {
      tool: 'revoke_catalog_approval',
      action: 'catalog.approval.revoked',
      targetType: 'catalog_request',
      targetId: approvalId,
      summary: {
        catalog_slug: item.slug,
        user_id: target.userId,
        addressed_by: addressedBy,
        revoked: r.revoked,
        tokens_invalidated: r.tokensInvalidated,
        notify_employee: input.notify_employee,
      },
    });
    return { revoked: r.revoked, tokens_invalidated: r.tokensInvalidated, addressedBy, approval_id: approvalId };
  },
});
