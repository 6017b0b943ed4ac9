// `assign_catalog_to_employee` (SPEC C write tools; admin, scope admin:approvals): approve-or-create
// through the REST assign core, with the agent rule of SPEC "Catalog approval status": an existing
// row in pending, approved, in_execution or completed is reused as it is and reported
// `idempotent: true` (a pending one stays pending: approve it with approve_team_support_request).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { assignInTransaction } from './assign-catalog-approval.js';
import { requireLiveItem } from './catalog-approvals.shared.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { catalogRefFields, catalogRefOf, exactlyOne } from './catalog-ref.rules.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { CATALOG_LIMITS } from './catalog.limits.js';

export const AssignCatalogToEmployeeInput = z
  .strictObject({
    ...catalogRefFields,
    email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax),
    note: z.string().max(CATALOG_LIMITS.noteMax).optional(),
  })
  .superRefine(exactlyOne('catalog_slug', 'catalog_id'));

export const AssignCatalogToEmployeeOutput = z.object({ approval_id: z.uuid(), status: z.string(), idempotent: z.boolean() });
export type AssignCatalogToEmployeeResult = z.infer<typeof AssignCatalogToEmployeeOutput>;

export const assignCatalogToEmployee = defineOperation<z.infer<typeof AssignCatalogToEmployeeInput>, AssignCatalogToEmployeeResult, AgentPrincipal>({
  name: 'agent.assign_catalog_to_employee',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:approvals'],
  idempotent: true,
  writes: true,
  input: AssignCatalogToEmployeeInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const item = await requireLiveItem(ctx.em, catalogRefOf(input));
    const user = await requireUserByEmail(ctx.em, input.email);
    const r = await assignInTransaction(ctx.em, ctx, ctx.principal.userId, item, user.id, { note: input.note, reusePending: true });
    recordToolAudit(ctx.em, ctx, {
      tool: 'assign_catalog_to_employee',
      action: 'catalog.approval.assigned',
      targetType: 'catalog_request',
      targetId: r.requestId,
      summary: { catalog_item_id: item.id, catalog_slug: item.slug, user_id: user.id, status: r.status, idempotent: r.idempotent },
    });
    return { approval_id: r.requestId, status: r.status, idempotent: r.idempotent };
  },
});
