// `list_pending_team_support_requests` (SPEC C; admin, scope admin:approvals): the review queue,
// oldest first, optionally for one catalog row (slug or id) or one employee (email).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { iso } from '../timestamps.js';
import { requireItem } from './catalog-approvals.shared.js';
import { listPendingRequests } from './catalog.repository.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { atMostOne, catalogRefFields, catalogRefOf } from './catalog-ref.rules.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { CATALOG_LIMITS } from '../catalog/catalog.limits.js';

export const ListPendingTeamSupportRequestsInput = z
  .strictObject({
    ...catalogRefFields,
    email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax).optional(),
    limit: z.number().int().min(1).max(CATALOG_LIMITS.pendingListMax).default(CATALOG_LIMITS.pendingListDefault),
  })
  .superRefine(atMostOne('catalog_slug', 'catalog_id'));

export const PendingRequestItem = z.object({
  request_id: z.uuid(),
  catalog_slug: z.string().nullable(),
  catalog_name: z.string(),
  user_id: z.uuid(),
  email: z.string(),
  name: z.string(),
  note: z.string().nullable(),
  requested_at: z.iso.datetime(),
  filed_by_email: z.string().nullable(),
});
export const ListPendingTeamSupportRequestsOutput = z.object({ items: z.array(PendingRequestItem) });
export type ListPendingTeamSupportRequestsResult = z.infer<typeof ListPendingTeamSupportRequestsOutput>;

export const listPendingTeamSupportRequests = defineOperation<
  z.infer<typeof ListPendingTeamSupportRequestsInput>,
  ListPendingTeamSupportRequestsResult,
  AgentPrincipal
>({
  name: 'agent.list_pending_team_support_requests',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:approvals'],
  idempotent: false,
  input: ListPendingTeamSupportRequestsInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const item = input.catalog_slug !== undefined || input.catalog_id !== undefined ? await requireItem(ctx.em, catalogRefOf(input)) : undefined;
    const user = input.email !== undefined ? await requireUserByEmail(ctx.em, input.email) : undefined;
    const rows = await listPendingRequests(ctx.em, { catalogItemId: item?.id, userId: user?.id }, input.limit);
    return {
      items: rows.map((r) => ({
        request_id: r.id,
        catalog_slug: r.catalog_slug,
        catalog_name: r.catalog_name,
        user_id: r.user_id,
        email: r.email,
        name: r.name,
        note: r.note,
        requested_at: iso(r.requested_at),
        filed_by_email: r.created_by_email,
      })),
    };
  },
});
