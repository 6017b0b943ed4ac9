// OpenAPI of the tools-token routes: bulk fan-out, claims, catalog approvals, integrators.
import { BulkEventRequestSchema, BulkEventResponseSchema } from '../../domain/events/publish-bulk.js';
import { ClaimTokenRequestSchema, ClaimedTokenSchema } from '../../domain/tokens/claim-token.rules.js';
import { ClaimTokenBatchRequestSchema } from '../../domain/tokens/claim-token.js';
import { IntegratorsResponseSchema } from '../../domain/tokens/list-integrators.js';
import {
  CatalogApprovalAssignRequestSchema,
  CatalogApprovalListItemSchema,
  CatalogApprovalReviewRequestSchema,
  ListApprovalsInput,
  RevokeApprovalInput,
} from '../../domain/catalog/approvals.js';
import { z } from 'zod';
import { bearer, commonHeaders, errors, idem, js, json, queryParams, rateHeaders, ref, type OpenApiPart } from './openapi-kit.js';

const ClaimBatchResponse = z.strictObject({
  results: z.array(z.object({ email: z.string(), ok: z.boolean(), token: ClaimedTokenSchema.optional(), reason: z.string().optional() })),
  requestId: z.string(),
});

export function toolsOpenApi(): OpenApiPart {
  const tools = 'Admin tools-token (svc-tools-...) only.';
  return {
    schemas: {
      BulkEventRequest: js(BulkEventRequestSchema, 'input'),
      BulkEventResponse: js(BulkEventResponseSchema, 'output'),
      ClaimTokenRequest: js(ClaimTokenRequestSchema, 'input'),
      ClaimedToken: js(ClaimedTokenSchema, 'output'),
      ClaimTokenBatchRequest: js(ClaimTokenBatchRequestSchema, 'input'),
      ClaimTokenBatchResponse: js(ClaimBatchResponse, 'output'),
      CatalogApprovalAssignRequest: js(CatalogApprovalAssignRequestSchema, 'input'),
      CatalogApprovalRevokeRequest: js(RevokeApprovalInput, 'input'),
      CatalogApprovalReviewRequest: js(CatalogApprovalReviewRequestSchema, 'input'),
      CatalogApprovalListItem: js(CatalogApprovalListItemSchema, 'output'),
      CatalogApprovalListResponse: js(z.strictObject({ items: z.array(CatalogApprovalListItemSchema), requestId: z.string() }), 'output'),
      CatalogApprovalRevokeResponse: js(z.strictObject({ revoked: z.boolean(), tokensInvalidated: z.number().int().min(0) }), 'output'),
      IntegratorsResponse: js(IntegratorsResponseSchema, 'output'),
    },
    paths: {
      '/api/v1/events/bulk': {
        post: {
          operationId: 'publishBulk',
          summary: 'Fan one template event out to 1-100 recipients',
          description: `${tools} Each recipient gets its own delivery under its own claimed personal token (dedup per recipient and event_id). Failures are per row (\`error\`: no_token, no_approved_request, user_not_found, user_inactive, token_disabled, cross_project_blocked, auto_claim_lookup_failed). Inline auto-claims commit on their own; all deliveries of one request are written by one statement.`,
          security: bearer,
          parameters: [...commonHeaders, idem],
          requestBody: { required: true, content: json(ref('BulkEventRequest')) },
          responses: { 202: { description: 'One row per recipient', headers: rateHeaders, content: json(ref('BulkEventResponse')) }, ...errors(400, 401, 403, 409, 429) },
        },
      },
      '/api/v1/tokens/claim': {
        post: {
          operationId: 'claimToken',
          summary: 'Mint or rotate a pre-approved employee\'s personal token',
          description: `${tools} The previous value stays valid until expiresPriorAt (24 h). A claim answers with a token value that is never stored, so claims do not replay from an Idempotency-Key.`,
          security: bearer,
          parameters: [...commonHeaders],
          requestBody: { required: true, content: json(ref('ClaimTokenRequest')) },
          responses: { 200: { description: 'Minted or rotated', headers: rateHeaders, content: json(ref('ClaimedToken')) }, ...errors(400, 401, 403, 422, 429) },
        },
      },
      '/api/v1/tokens/claim/batch': {
        post: {
          operationId: 'claimTokenBatch',
          summary: 'Claim 1-100 tokens; each row independent',
          description: tools,
          security: bearer,
          parameters: [...commonHeaders],
          requestBody: { required: true, content: json(ref('ClaimTokenBatchRequest')) },
          responses: { 200: { description: 'Per-row results', headers: rateHeaders, content: json(ref('ClaimTokenBatchResponse')) }, ...errors(400, 401, 403, 429) },
        },
      },
      '/api/v1/catalog/approvals': {
        get: {
          operationId: 'listCatalogApprovals',
          summary: 'List approvals (newest first, at most 500)',
          description: `${tools} Status values: pending, approved (also in_execution and completed), rejected, revoked (also withdrawn and cancelled).`,
          security: bearer,
          parameters: [...commonHeaders, ...queryParams(ListApprovalsInput)],
          responses: { 200: { description: 'Approvals', headers: rateHeaders, content: json(ref('CatalogApprovalListResponse')) }, ...errors(400, 401, 403, 429) },
        },
        post: {
          operationId: 'assignCatalogApproval',
          summary: 'Assign: approved request and access asset, bypassing review (idempotent)',
          description: tools,
          security: bearer,
          parameters: [...commonHeaders, idem],
          requestBody: { required: true, content: json(ref('CatalogApprovalAssignRequest')) },
          responses: { 201: { description: 'The approval', headers: rateHeaders, content: json(ref('CatalogApprovalListItem')) }, ...errors(400, 401, 403, 404, 409, 422, 429) },
        },
        delete: {
          operationId: 'revokeCatalogApproval',
          summary: 'Revoke an approval; personal tokens claimed under it stop working at once',
          description: `${tools} A repeat is a no-op with revoked false. The employee is notified unless notify_employee is false.`,
          security: bearer,
          parameters: [...commonHeaders, idem],
          requestBody: { required: true, content: json(ref('CatalogApprovalRevokeRequest')) },
          responses: { 200: { description: 'Outcome', headers: rateHeaders, content: json(ref('CatalogApprovalRevokeResponse')) }, ...errors(400, 401, 403, 404, 409, 422, 429) },
        },
      },
      '/api/v1/catalog/approvals/review': {
        post: {
          operationId: 'reviewCatalogApproval',
          summary: 'Review a pending request: approve (access asset created) or reject',
          description: `${tools} The spec leaves this path open; it is also the Connect RPC fluxdesk.catalog.v1.CatalogApprovalService/ReviewApproval. A request that is not pending gives 409.`,
          security: bearer,
          parameters: [...commonHeaders, idem],
          requestBody: { required: true, content: json(ref('CatalogApprovalReviewRequest')) },
          responses: { 200: { description: 'The reviewed request', headers: rateHeaders, content: json(ref('CatalogApprovalListItem')) }, ...errors(400, 401, 403, 404, 409, 429) },
        },
      },
      '/api/v1/integrators': {
        get: {
          operationId: 'listIntegrators',
          summary: 'Non-archived integrator registry rows',
          description: tools,
          security: bearer,
          parameters: [...commonHeaders],
          responses: { 200: { description: 'Integrators', headers: rateHeaders, content: json(ref('IntegratorsResponse')) }, ...errors(401, 403, 429) },
        },
      },
    },
  };
}
