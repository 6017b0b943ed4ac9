// The older endpoints under /api/internal-os/* (SPEC B), declared once: the legacy plugin registers
// them from here and the served OpenAPI document (rest-v1/openapi.ts) describes them from here,
// tagged `legacy`. Kept in http/ because two surfaces share it (transports import no other
// transport). Same operations as REST v1; errors use the legacy body ({error, message, ...}).
import { z } from 'zod';
import type { AppDeps } from '../../app/deps.js';
import { DeliveryViewSchema } from '../../domain/events/delivery.view.js';
import { pingPersonalToken } from '../../domain/tokens/ping-token.js';
import { claimToken } from '../../domain/tokens/claim-token.js';
import { LegacyClaimBatchSchema, legacyClaimBatch } from '../../domain/tokens/claim-token-batch-legacy.js';
import { pingToolsToken } from '../../domain/tokens/ping-tools-token.js';
import { ClaimTokenRequestSchema } from '../../domain/tokens/claim-token.rules.js';
import { RevokeApprovalInput } from '../../domain/catalog/catalog-approvals.schemas.js';
import { revokeCatalogApproval } from '../../domain/catalog/revoke-catalog-approval.js';
import { ExchangeConnectSessionInput, exchangeConnectSession } from '../../domain/tokens/exchange-connect-session.js';
import { receiveRepositoryPush } from '../../domain/repositories/receive-repository-push.js';
import { InboundEventBody, PUBLISH_EVENT_CORE } from './publish-route-core.js';
import { route, type DocumentedRoute, type HttpMethod, type RouteDecl, type RouteDocBase } from './route-declaration.js';
import { TOKEN_LIMITS } from '../../domain/tokens/tokens.limits.js';

const endpointOf = (deps: AppDeps) => `${deps.config.publicBaseUrl}/api/internal-os/integrations/inbound/personal`;
const OLDER = 'Older endpoint (SPEC B), kept for existing integrations; new integrations use /api/v1.';
const TOOLS = 'Admin tools-token (svc-tools-...) only: a tools-token whose owner is not an admin gets 403 forbidden_admin_only.';

// The bodies the handlers build (SPEC "Legacy claim and ping results").
const LegacyClaimResultSchema = z.strictObject({ ok: z.literal(true), token: z.string(), token_id: z.uuid(), endpoint: z.string(), rotated: z.boolean() });
const LegacyClaimBatchResultSchema = z.strictObject({
  ok: z.literal(true),
  endpoint: z.string(),
  succeeded: z.number().int().min(0),
  failed: z.number().int().min(0),
  results: z.array(
    z.union([
      z.strictObject({ email: z.string(), ok: z.literal(true), token: z.string(), token_id: z.uuid(), rotated: z.boolean() }),
      z.strictObject({ email: z.string(), ok: z.literal(false), error: z.string() }),
    ]),
  ),
});
const PersonalPingSchema = z.strictObject({ ok: z.literal(true), token_id: z.uuid(), owner: z.string(), now: z.iso.datetime() });
const ToolsPingSchema = z.strictObject({
  ok: z.literal(true),
  kind: z.literal('tools_claim'),
  tools_token_id: z.uuid(),
  label: z.string(),
  owner: z.string(),
  now: z.iso.datetime(),
});
const LegacyRevokeResultSchema = z.strictObject({ ok: z.literal(true), revoked: z.boolean(), tokens_invalidated: z.number().int().min(0) });
const ConnectSessionExchangedSchema = z.strictObject({
  token: z.string(),
  token_id: z.uuid(),
  scopes: z.array(z.string()),
  user_email: z.string(),
  mcp_url: z.string(),
});
const LegacyDelivery = { name: 'Delivery', schema: DeliveryViewSchema };

export const LEGACY_OPERATION_ROUTES: readonly RouteDecl[] = [
  route({
    method: 'POST',
    path: '/api/internal-os/integrations/inbound/personal',
    tag: 'legacy',
    operationId: 'legacyPublishEvent',
    summary: 'Publish one event (older inbound endpoint)',
    description:
      `${OLDER} One InboundEvent per POST with a personal token: 202 on first arrival, 200 on a repeated (token, event_id); over the daily limit ` +
      '200 with `degraded` true. The event_type namespace is not enforced here, and an unlisted external_status is stored as null. ' +
      'An explicit Content-Length is required (411 on chunked bodies).',
    deprecated: true,
    security: 'bearer',
    body: InboundEventBody,
    headers: { 'X-Caller-Tools-Token': 'An admin tools-token, read only for the 422 inbound-no-approval probe when the bearer token is unknown.' },
    success: [
      { status: 202, description: 'Created; the recipient is notified', body: LegacyDelivery },
      { status: 200, description: 'A repeat of (token, event_id), or accepted over the daily limit (`degraded` true)', body: LegacyDelivery },
    ],
    ...PUBLISH_EVENT_CORE,
  }),
  route({
    method: 'POST',
    path: '/api/internal-os/integrations/inbound/personal/ping',
    tag: 'legacy',
    operationId: 'legacyPingPersonalToken',
    summary: 'Check a personal token (creates nothing)',
    description: `${OLDER} Any JSON body (or none) is accepted and ignored; no inbox row is created.`,
    deprecated: true,
    security: 'bearer',
    success: [{ status: 200, description: 'The personal ping result', body: { name: 'LegacyPersonalPing', schema: PersonalPingSchema } }],
    op: pingPersonalToken,
    input: (req) => req.body ?? {},
  }),
  route({
    method: 'POST',
    path: '/api/internal-os/integrations/claim',
    tag: 'legacy',
    operationId: 'legacyClaimToken',
    summary: "Mint or rotate an employee's personal token (older claim)",
    description: `${OLDER} ${TOOLS} \`{email}\`: 201 on the first mint, 200 on a rotation (the previous value stays valid ${TOKEN_LIMITS.rotationOverlapHours} h). 403 no_approved_request when the email has no approved request.`,
    deprecated: true,
    security: 'bearer',
    body: { name: 'ClaimTokenRequest', schema: ClaimTokenRequestSchema, required: true },
    success: [
      { status: 201, description: 'First mint', body: { name: 'LegacyClaimResult', schema: LegacyClaimResultSchema } },
      { status: 200, description: 'Rotation', body: { name: 'LegacyClaimResult', schema: LegacyClaimResultSchema } },
    ],
    errors: { forbidden: ['forbidden_admin_only', 'no_approved_request', 'user_inactive'], unprocessable: ['user_not_found', 'domain_not_allowed'] },
    op: claimToken,
    input: (req) => req.body,
    status: (o) => (o.rotated ? 200 : 201),
    reply: (o, deps) => ({ ok: true, token: o.token, token_id: o.tokenId, endpoint: endpointOf(deps), rotated: o.rotated }),
  }),
  route({
    method: 'POST',
    path: '/api/internal-os/integrations/claim/batch',
    tag: 'legacy',
    operationId: 'legacyClaimBatch',
    summary: `Claim tokens for up to ${TOKEN_LIMITS.legacyClaimBatchMax} emails (older batch)`,
    description: `${OLDER} ${TOOLS} \`{emails}\`: at most ${TOKEN_LIMITS.legacyClaimBatchMax} (more is 400 emails_too_many); always 200 with per-row results.`,
    deprecated: true,
    security: 'bearer',
    body: { name: 'LegacyClaimBatchRequest', schema: LegacyClaimBatchSchema, required: true },
    success: [{ status: 200, description: 'Per-row results', body: { name: 'LegacyClaimBatchResult', schema: LegacyClaimBatchResultSchema } }],
    errors: { validation: ['emails_too_many'], forbidden: ['forbidden_admin_only'] },
    op: legacyClaimBatch,
    input: (req) => req.body,
    reply: (o, deps) => ({ ok: true, endpoint: endpointOf(deps), ...o }),
  }),
  route({
    method: 'POST',
    path: '/api/internal-os/integrations/claim/ping',
    tag: 'legacy',
    operationId: 'legacyPingToolsToken',
    summary: 'Check a tools-token (mints and rotates nothing)',
    description: `${OLDER} ${TOOLS} No body needed.`,
    deprecated: true,
    security: 'bearer',
    success: [{ status: 200, description: 'The tools-token ping result', body: { name: 'LegacyToolsPing', schema: ToolsPingSchema } }],
    errors: { forbidden: ['forbidden_admin_only'] },
    op: pingToolsToken,
    input: (req) => req.body,
  }),
  route({
    method: 'POST',
    path: '/api/internal-os/integrations/catalog/approval',
    tag: 'legacy',
    operationId: 'legacyRevokeCatalogApproval',
    summary: 'Revoke a catalog approval (older endpoint)',
    description: `${OLDER} ${TOOLS} The same core as DELETE /api/v1/catalog/approvals; notifies the employee unless notify_employee is false.`,
    deprecated: true,
    security: 'bearer',
    body: { name: 'CatalogApprovalRevokeRequest', schema: RevokeApprovalInput, required: true },
    success: [{ status: 200, description: 'Outcome', body: { name: 'LegacyRevokeResult', schema: LegacyRevokeResultSchema } }],
    errors: { forbidden: ['forbidden_admin_only'], not_found: ['not_found'], unprocessable: ['user_not_found'] },
    op: revokeCatalogApproval,
    input: (req) => req.body,
    reply: (o) => ({ ok: true, revoked: o.revoked, tokens_invalidated: o.tokensInvalidated }),
  }),
  route({
    method: 'POST',
    path: '/api/internal-os/agent/connect-callback',
    tag: 'legacy',
    operationId: 'agentConnectCallback',
    summary: 'Exchange a connect session id for an agent token (one-click client setup)',
    description:
      'No bearer: the short-lived `session_id` is the credential, good for exactly one agent token. Unknown, expired and reused sessions ' +
      'all get 400 invalid_session. The answer is never cached.',
    security: 'none',
    body: { name: 'ConnectCallbackRequest', schema: ExchangeConnectSessionInput, required: true },
    success: [
      {
        status: 200,
        description: 'The agent token (shown once) and the /mcp address',
        body: { name: 'ConnectCallbackResult', schema: ConnectSessionExchangedSchema },
        headers: { 'Cache-Control': 'no-store' },
      },
    ],
    errors: { validation: ['invalid_session'] },
    op: exchangeConnectSession,
    input: (req) => req.body,
    replyHeaders: { 'cache-control': 'no-store' },
  }),
];

const markdown = { 'text/markdown': { type: 'string' } };

/** Routes the legacy plugin answers itself (texts, probe); their handlers live there. */
export const LEGACY_PAGES = {
  inboundProtocol: {
    method: 'GET',
    path: '/api/internal-os/integrations/protocol',
    tag: 'legacy',
    operationId: 'inboundProtocol',
    summary: "The inbound protocol (integrators' guide)",
    description: 'Plain markdown, no authentication (SPEC Discovery 9).',
    security: 'none',
    success: [{ status: 200, description: 'The inbound protocol document (version 2.0)', media: markdown }],
  },
  agentProtocol: {
    method: 'GET',
    path: '/api/internal-os/agent/protocol',
    tag: 'legacy',
    operationId: 'agentProtocol',
    summary: 'The agent tool protocol of POST /mcp',
    description: 'Plain markdown, no authentication (SPEC Discovery 9): the methods, tools, scopes, errors and limits of /mcp.',
    security: 'none',
    success: [{ status: 200, description: 'The agent protocol document', media: markdown }],
  },
  healthz: {
    method: 'GET',
    path: '/api/internal-os/healthz',
    tag: 'legacy',
    operationId: 'legacyHealthz',
    summary: 'Reachability probe (older)',
    description: 'Answers `{ok: true}` while the process runs; use GET /api/v1/health (version) or /api/v1/ready (dependencies) instead.',
    deprecated: true,
    security: 'none',
    success: [{ status: 200, description: 'Reachable', body: { name: 'LegacyHealthz', schema: z.strictObject({ ok: z.literal(true) }) } }],
  },
} satisfies Record<string, RouteDocBase>;

/** The methods `app.all` registers that OpenAPI 3.1 can name (QUERY it cannot). */
const ALL_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

/** Version 1 inbound paths (SPEC Versioning 2): registered with `app.all` by the legacy plugin. */
const goneRoutes = (path: string, prefix: string): DocumentedRoute[] =>
  ALL_METHODS.map((method) => ({
    documentedOnly: true,
    method,
    path,
    tag: 'legacy',
    operationId: `${prefix}${method[0]}${method.slice(1).toLowerCase()}`,
    summary: 'Removed version 1 inbound path',
    description:
      'Inbound protocol version 1 was removed: 410 gone. Use POST /api/internal-os/integrations/inbound/personal or /api/v1/events with spec_version "2". ' +
      'The slug `personal` with another method than POST is 404 method_not_allowed.',
    deprecated: true,
    security: 'none',
    params: { slug: { type: 'string', description: 'The version 1 endpoint slug' } },
    success: [],
    errors: { gone: ['gone'], not_found: ['method_not_allowed'] },
  }));

/** Push webhooks of bound repositories: registered by legacy/repository-webhooks.ts (its own body parser). */
const REPOSITORY_PUSH: DocumentedRoute = {
  documentedOnly: true,
  method: 'POST',
  path: '/api/internal-os/integrations/repositories/{repo_id}/push',
  tag: 'legacy',
  operationId: 'repositoryPush',
  summary: 'Push webhook of a bound repository',
  description:
    "A Gitea-style push event signed with the repository's webhook secret: `X-Gitea-Signature` (or `X-Gogs-Signature`) = hex HMAC-SHA256 of " +
    'the raw body, or `X-Hub-Signature-256` = `sha256=<hex>`. Unknown repository 404, missing or wrong signature 401, unbound repository 410, ' +
    'body not UTF-8 JSON 400 malformed_json, payload shape 400 schema_invalid, payload naming another repository 409. Body at most 1 MB. ' +
    'Other events than push, and pushes to non-branch refs, are acknowledged and ignored.',
  security: 'none',
  params: { repo_id: { type: 'string', format: 'uuid', description: 'The repository id (from bind_project_repository)' } },
  headers: { 'X-Gitea-Signature': 'hex HMAC-SHA256 of the body', 'X-Gitea-Event': 'the event name (push)' },
  success: [
    {
      status: 200,
      description: 'Recorded (or acknowledged and ignored, with `ignored`)',
      body: {
        name: 'RepositoryPushResult',
        schema: z.strictObject({
          ok: z.literal(true),
          repo_id: z.uuid(),
          branch: z.string().nullable(),
          received: z.number().int().min(0),
          stored: z.number().int().min(0),
          ignored: z.string().optional(),
        }),
      },
    },
  ],
  errors: {
    unauthenticated: ['signature_missing', 'signature_mismatch'],
    not_found: ['not_found'],
    gone: ['repository_unbound'],
    conflict: ['repository_mismatch'],
  },
  op: receiveRepositoryPush,
};

/** Every legacy route, for the document. */
export const LEGACY_ROUTES: readonly RouteDocBase[] = [
  ...LEGACY_OPERATION_ROUTES,
  ...Object.values(LEGACY_PAGES),
  REPOSITORY_PUSH,
  ...goneRoutes('/api/internal-os/integrations/inbound/{slug}', 'legacyInboundV1'),
  ...goneRoutes('/inbound/{slug}', 'inboundV1'),
];
