// REST v1 tools-token routes, declared once: claims, catalog approvals, integrators. Map -> call -> map.
import { z } from 'zod';
import { claimToken } from '../../domain/tokens/claim-token.js';
import { ClaimTokenBatchRequestSchema, claimTokenBatch } from '../../domain/tokens/claim-token-batch.js';
import { ClaimedTokenSchema, ClaimTokenRequestSchema } from '../../domain/tokens/claim-token.rules.js';
import { IntegratorsResponseSchema, listIntegrators } from '../../domain/tokens/list-integrators.js';
import { assignCatalogApproval } from '../../domain/catalog/assign-catalog-approval.js';
import {
  CatalogApprovalAssignRequestSchema,
  CatalogApprovalListItemSchema,
  CatalogApprovalReviewRequestSchema,
  ListApprovalsInput,
  RevokeApprovalInput,
} from '../../domain/catalog/catalog-approvals.schemas.js';
import { listCatalogApprovals } from '../../domain/catalog/list-catalog-approvals.js';
import { reviewCatalogApproval } from '../../domain/catalog/review-catalog-approval.js';
import { revokeCatalogApproval } from '../../domain/catalog/revoke-catalog-approval.js';
import { route, type RouteDecl } from '../http/route-declaration.js';
import { TOKEN_LIMITS } from '../../domain/tokens/tokens.limits.js';
import { CATALOG_LIMITS } from '../../domain/catalog/catalog.limits.js';
import { getTokenSelf, TokenSelfSchema } from '../../domain/tokens/get-token-self.js';

const TOOLS = 'Admin tools-token (svc-tools-...) only: a tools-token whose owner is not an admin gets 403 forbidden_admin_only.';

// The bodies these routes send, as the handlers build them.
const ClaimBatchResponseSchema = z.strictObject({
  results: z.array(z.object({ email: z.string(), ok: z.boolean(), token: ClaimedTokenSchema.optional(), reason: z.string().optional() })),
  requestId: z.string(),
});
const ApprovalListResponseSchema = z.strictObject({ items: z.array(CatalogApprovalListItemSchema), requestId: z.string() });
const RevokeResponseSchema = z.strictObject({ revoked: z.boolean(), tokensInvalidated: z.number().int().min(0) });
const ApprovalItem = { name: 'CatalogApprovalListItem', schema: CatalogApprovalListItemSchema };

export const TOOLS_ROUTES: readonly RouteDecl[] = [
  route({
    method: 'GET',
    path: '/api/v1/tokens/self',
    tag: 'tokens',
    operationId: 'getTokenSelf',
    summary: "The calling token's view of itself: owner, integrator, expiry, rotation overlap, limits now, circuit breaker",
    description:
      'Any personal, moderation or tools-token (agent tokens use the whoami tool). Counted as one read of the request budget ' +
      '(like the read-back); the other windows are read without counting. Answers also while the token is suspended by its ' +
      'circuit breaker (state open). `limits.daily` is null for tools-tokens (they publish no single events); `limits.userDaily` ' +
      "(the owner's inbox rows today, all tokens) only for personal tokens; `limits.perMinute` is null when the rate-limit store " +
      'is unreachable. Never carries a token value, hash or secret.',
    security: 'bearer',
    success: [{ status: 200, description: 'The token', body: { name: 'TokenSelf', schema: TokenSelfSchema } }],
    errors: { not_found: ['not_found'] },
    op: getTokenSelf,
    input: () => ({}),
    replyHeaders: { 'cache-control': 'no-store' },
  }),
  route({
    method: 'POST',
    path: '/api/v1/tokens/claim',
    tag: 'tokens',
    operationId: 'claimToken',
    summary: "Mint or rotate a pre-approved employee's personal token",
    description:
      `${TOOLS} The previous value stays valid until expiresPriorAt (${TOKEN_LIMITS.rotationOverlapHours} h). A claim answers with a token value that is never stored, ` +
      'so claims do not replay from an Idempotency-Key. 403 no_approved_request / user_inactive and 422 user-not-found / domain-not-allowed carry `email`.',
    security: 'bearer',
    body: { name: 'ClaimTokenRequest', schema: ClaimTokenRequestSchema, required: true },
    success: [{ status: 200, description: 'Minted or rotated', body: { name: 'ClaimedToken', schema: ClaimedTokenSchema } }],
    errors: { forbidden: ['forbidden_admin_only', 'no_approved_request', 'user_inactive'], unprocessable: ['user_not_found', 'domain_not_allowed'] },
    op: claimToken,
    input: (req) => req.body,
    reply: (o) => ({ token: o.token, tokenId: o.tokenId, ownerUserId: o.ownerUserId, expiresPriorAt: o.expiresPriorAt }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/tokens/claim/batch',
    tag: 'tokens',
    operationId: 'claimTokenBatch',
    summary: `Claim 1-${TOKEN_LIMITS.claimBatchMax} tokens; each row independent`,
    description: `${TOOLS} A refused row carries \`ok\` false and \`reason\` (no_approved_request, user_not_found, user_inactive, domain_not_allowed); the others are claimed.`,
    security: 'bearer',
    body: { name: 'ClaimTokenBatchRequest', schema: ClaimTokenBatchRequestSchema, required: true },
    success: [{ status: 200, description: 'Per-row results', body: { name: 'ClaimTokenBatchResponse', schema: ClaimBatchResponseSchema } }],
    errors: { forbidden: ['forbidden_admin_only'] },
    op: claimTokenBatch,
    input: (req) => req.body,
  }),
  route({
    method: 'GET',
    path: '/api/v1/catalog/approvals',
    tag: 'catalog-approvals',
    operationId: 'listCatalogApprovals',
    summary: `List approvals (newest first, at most ${CATALOG_LIMITS.approvalsListMax})`,
    description: `${TOOLS} Status values: pending, approved (also in_execution and completed), rejected, revoked (also withdrawn and cancelled).`,
    security: 'bearer',
    query: ListApprovalsInput,
    success: [{ status: 200, description: 'Approvals', body: { name: 'CatalogApprovalListResponse', schema: ApprovalListResponseSchema } }],
    errors: { forbidden: ['forbidden_admin_only'] },
    op: listCatalogApprovals,
    input: (req) => req.query,
  }),
  route({
    method: 'POST',
    path: '/api/v1/catalog/approvals',
    tag: 'catalog-approvals',
    operationId: 'assignCatalogApproval',
    summary: 'Assign an approval: approved request and access asset, bypassing review',
    description: `${TOOLS} Idempotent: an employee who already holds a live approval keeps it. An unknown or archived catalog row is 404; an unknown email is 422 user-not-found with \`email\`.`,
    security: 'bearer',
    body: { name: 'CatalogApprovalAssignRequest', schema: CatalogApprovalAssignRequestSchema, required: true },
    success: [{ status: 201, description: 'The approval', body: ApprovalItem }],
    errors: { forbidden: ['forbidden_admin_only'], not_found: ['not_found'], unprocessable: ['user_not_found'] },
    op: assignCatalogApproval,
    input: (req) => req.body,
    status: 201,
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/catalog/approvals',
    tag: 'catalog-approvals',
    operationId: 'revokeCatalogApproval',
    summary: 'Revoke an approval; personal tokens claimed under it stop working at once',
    description: `${TOOLS} A repeat is a no-op with revoked false. The employee is notified unless notify_employee is false. An unknown catalog row is 404; an unknown email is 422 user-not-found with \`email\`.`,
    security: 'bearer',
    body: { name: 'CatalogApprovalRevokeRequest', schema: RevokeApprovalInput, required: true },
    success: [{ status: 200, description: 'Outcome', body: { name: 'CatalogApprovalRevokeResponse', schema: RevokeResponseSchema } }],
    errors: { forbidden: ['forbidden_admin_only'], not_found: ['not_found'], unprocessable: ['user_not_found'] },
    op: revokeCatalogApproval,
    input: (req) => req.body,
  }),
  route({
    method: 'POST',
    path: '/api/v1/catalog/approvals/review',
    tag: 'catalog-approvals',
    operationId: 'reviewCatalogApproval',
    summary: 'Review a pending request: approve (access asset created) or reject',
    description:
      `${TOOLS} The spec leaves this path open; it is also the Connect RPC fluxdesk.catalog.v1.CatalogApprovalService/ReviewApproval. ` +
      'An unknown request is 404; a request that is not pending gives 409 not_pending.',
    security: 'bearer',
    body: { name: 'CatalogApprovalReviewRequest', schema: CatalogApprovalReviewRequestSchema, required: true },
    success: [{ status: 200, description: 'The reviewed request', body: ApprovalItem }],
    errors: { forbidden: ['forbidden_admin_only'], not_found: ['not_found'], conflict: ['not_pending'] },
    op: reviewCatalogApproval,
    input: (req) => req.body,
  }),
  route({
    method: 'GET',
    path: '/api/v1/integrators',
    tag: 'introspection',
    operationId: 'listIntegrators',
    summary: 'Non-archived integrator registry rows',
    description: TOOLS,
    security: 'bearer',
    success: [{ status: 200, description: 'Integrators', body: { name: 'IntegratorsResponse', schema: IntegratorsResponseSchema } }],
    errors: { forbidden: ['forbidden_admin_only'] },
    op: listIntegrators,
    input: (req) => req.query,
  }),
];
