// `approve_team_support_request` (SPEC C write tools; admin, scope admin:approvals): the review
// core of the REST approval review with decision approve. `asset_id` is the deprecated alias of
// `access_asset_id` (Versioning 4). Catalog bundles do not exist yet, so there is no `children[]`.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { reviewInTransaction } from './review-catalog-approval.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { recordToolAudit } from '../audit/tool-audit.js';
import { CATALOG_AUDIT } from './catalog.audit.js';

export const ApproveTeamSupportRequestInput = z.strictObject({ request_id: z.uuid({ error: 'must be a UUID' }) });

export const ApproveTeamSupportRequestOutput = z.object({
  request_id: z.uuid(),
  status: z.string(),
  access_asset_id: z.uuid(),
  /** Deprecated alias of access_asset_id. */
  asset_id: z.uuid(),
});
export type ApproveTeamSupportRequestResult = z.infer<typeof ApproveTeamSupportRequestOutput>;

export const approveTeamSupportRequest = defineOperation<z.infer<typeof ApproveTeamSupportRequestInput>, ApproveTeamSupportRequestResult, AgentPrincipal>({
  name: 'agent.approve_team_support_request',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:approvals'],
  idempotent: true,
  writes: true,
  input: ApproveTeamSupportRequestInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const { request, accessAssetId } = await reviewInTransaction(ctx.em, ctx, ctx.principal.userId, input.request_id, 'approve');
    recordToolAudit(ctx.em, ctx, {
      tool: 'approve_team_support_request',
      action: CATALOG_AUDIT.requestApproved,
      targetType: 'catalog_request',
      targetId: request.id,
      summary: { request_id: request.id, access_asset_id: accessAssetId },
    });
    return { request_id: request.id, status: request.status, access_asset_id: accessAssetId!, asset_id: accessAssetId! };
  },
});
