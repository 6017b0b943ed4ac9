// `list_approvals_for_user` (SPEC C read tools; admin, scope admin:approvals): one employee's
// catalog requests, newest first, with agent-side statuses. Filter `approved` (default) covers
// approved, in_execution and completed; `revoked` covers withdrawn, rejected, cancelled (and rows
// revoked by an admin); `pending`; `all`. `decided_at` / `decided_by` are the review decision
// (approve, reject, or the admin assign), null while pending.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { iso } from '../timestamps.js';
import { listRequestsOfUser } from './catalog-approvals.shared.js';
import { AGENT_APPROVAL_FILTERS, type AgentApprovalFilter } from './catalog.rules.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { USER_LIMITS } from '../users/users.limits.js';

export const ListApprovalsForUserInput = z.strictObject({
  email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax),
  status: z.enum(Object.keys(AGENT_APPROVAL_FILTERS) as [AgentApprovalFilter, ...AgentApprovalFilter[]]).default('approved'),
});

export const ApprovalForUserItem = z.object({
  approval_id: z.uuid(),
  catalog_slug: z.string().nullable(),
  catalog_name: z.string(),
  status: z.string(),
  created_at: z.iso.datetime(),
  decided_at: z.iso.datetime().nullable(),
  decided_by: z.string().nullable(),
});
export const ListApprovalsForUserOutput = z.object({ items: z.array(ApprovalForUserItem) });
export type ListApprovalsForUserResult = z.infer<typeof ListApprovalsForUserOutput>;

export const listApprovalsForUser = defineOperation<z.infer<typeof ListApprovalsForUserInput>, ListApprovalsForUserResult, AgentPrincipal>({
  name: 'agent.list_approvals_for_user',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:approvals'],
  idempotent: false,
  input: ListApprovalsForUserInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const user = await requireUserByEmail(ctx.em, input.email);
    const rows = await listRequestsOfUser(ctx.em, user.id, input.status);
    return {
      items: rows.map((r) => ({
        approval_id: r.id,
        catalog_slug: r.catalog_slug,
        catalog_name: r.catalog_name,
        status: r.status,
        created_at: iso(r.requested_at),
        decided_at: r.reviewed_at === null ? null : iso(r.reviewed_at),
        decided_by: r.reviewed_by_email,
      })),
    };
  },
});
