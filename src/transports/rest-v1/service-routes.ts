// The service's own routes (probes, this document and its viewer), declared once, and the routes
// other plugins serve that this document describes from here: GET /metrics (when it is on the
// main listener) and the agent protocol at /mcp (one JSON-RPC 2.0 operation).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import type { AppDeps } from '../../app/deps.js';
import { DomainError } from '../../domain/errors.js';
import { describeBudget } from '../../domain/rate-budgets.rules.js';
import type { DocumentedRoute, HandlerRoute, RouteDocBase } from '../http/route-declaration.js';
import { CONTENT_SECURITY_POLICY, PAGE_SECURITY_HEADERS } from '../http/page-security.js';
import { sendProblem } from './problem.js';

export const HealthSchema = z.strictObject({ ok: z.boolean(), version: z.string(), serverTime: z.iso.datetime().optional() });
const CheckState = z.enum(['ok', 'failing']);
const ReadySchema = z.strictObject({ ok: z.literal(true), version: z.string(), checks: z.record(z.string(), CheckState) });

/** The agent protocol text, served unauthenticated by the legacy plugin (SPEC Discovery 9). */
export const AGENT_PROTOCOL_PATH = '/api/internal-os/agent/protocol';

const HEALTH: RouteDocBase = {
  method: 'GET',
  path: '/api/v1/health',
  tag: 'service',
  operationId: 'health',
  summary: 'Liveness and version',
  description: 'Answers 200 while the process runs; makes no database access. `version` is the running service version.',
  security: 'none',
  success: [{ status: 200, description: 'Alive', body: { name: 'Health', schema: HealthSchema } }],
};

const READY: RouteDocBase = {
  method: 'GET',
  path: '/api/v1/ready',
  tag: 'service',
  operationId: 'ready',
  summary: 'Readiness: the dependencies a request needs answer',
  description:
    'PostgreSQL (reachable, migrations current) and Redis (when configured). 503 problem not_ready naming what fails (`failing`, `checks`), ' +
    'and 503 for good once the process drains (`failing`: ["draining"]). Never cached.',
  security: 'none',
  success: [{ status: 200, description: 'Ready', body: { name: 'Ready', schema: ReadySchema }, headers: { 'Cache-Control': 'no-store' } }],
  errors: { unavailable: ['not_ready'] },
};

const OPENAPI: RouteDocBase = {
  method: 'GET',
  path: '/api/v1/openapi.json',
  tag: 'docs',
  operationId: 'openapi',
  summary: 'This OpenAPI 3.1 document',
  description: 'Generated at start from the route declarations that also register the routes.',
  security: 'none',
  success: [{ status: 200, description: 'The OpenAPI 3.1 document', media: { 'application/json': { type: 'object' } } }],
};

// The viewer is served on the API's own origin, next to the web app and its session cookies: its
// page gets the headers of every page of this process (http/page-security.ts), and Swagger UI runs
// under that policy without a violation (test/e2e/docs.e2e.test.ts).

const NOSNIFF_DOC = 'nosniff: the asset is only ever what its Content-Type says';
const DOCS_HEADER_DOCS: Record<string, string> = {
  'Content-Security-Policy': `The page's policy: ${CONTENT_SECURITY_POLICY}`,
  'X-Frame-Options': 'DENY: never shown in a frame',
  'X-Content-Type-Options': NOSNIFF_DOC,
  'Referrer-Policy': 'same-origin',
};

const DOCS: RouteDocBase = {
  method: 'GET',
  path: '/api/v1/docs',
  tag: 'docs',
  operationId: 'docs',
  summary: 'Interactive viewer of this document',
  description:
    'Swagger UI (HTML) reading /api/v1/openapi.json; its assets are served under /api/v1/docs/assets/. ' +
    'Under a Content-Security-Policy of its own (same-origin scripts, styles and calls only) and never framed.',
  security: 'none',
  success: [{ status: 200, description: 'HTML page', media: { 'text/html': { type: 'string' } }, headers: DOCS_HEADER_DOCS }],
};

const DOCS_ASSET: RouteDocBase = {
  method: 'GET',
  path: '/api/v1/docs/assets/{file}',
  tag: 'docs',
  operationId: 'docsAsset',
  summary: 'A static asset of the viewer',
  description: 'swagger-ui.css, swagger-ui-bundle.js and init.js; any other name is 404.',
  security: 'none',
  params: { file: { type: 'string', enum: ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js'] } },
  success: [
    {
      status: 200,
      description: 'The asset (cached for a day)',
      media: { 'text/css': { type: 'string' }, 'text/javascript': { type: 'string' } },
      headers: { 'X-Content-Type-Options': NOSNIFF_DOC },
    },
  ],
  errors: { not_found: ['not_found'] },
};

/** GET /metrics on the main listener (METRICS_PORT unset); registered by http/metrics.ts. */
export const METRICS_ROUTE: DocumentedRoute = {
  documentedOnly: true,
  method: 'GET',
  path: '/metrics',
  tag: 'service',
  operationId: 'metrics',
  summary: 'Prometheus metrics',
  description:
    'Prometheus text exposition, no authentication. Served here only while METRICS_PORT is unset; in production set METRICS_PORT ' +
    '(a listener of its own) and keep it private (docs/metrics.md).',
  security: 'none',
  success: [{ status: 200, description: 'Metrics', media: { 'text/plain': { type: 'string' } }, headers: { 'Cache-Control': 'no-store' } }],
};

// JSON-RPC 2.0 shapes of /mcp (SPEC C); the methods and tools are described by the agent protocol text.
const JsonRpcId = z.union([z.string(), z.number(), z.null()]);
const JsonRpcMessageSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcId.optional(),
  method: z.string().optional(),
  params: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});
const JsonRpcErrorObject = z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });
const JsonRpcResponseSchema = z.object({ jsonrpc: z.literal('2.0'), id: JsonRpcId, result: z.unknown().optional(), error: JsonRpcErrorObject.optional() });
export const JsonRpcErrorResponseSchema = z.object({ jsonrpc: z.literal('2.0'), id: JsonRpcId, error: JsonRpcErrorObject });

const MCP_DESCRIPTION =
  `JSON-RPC 2.0 over streamable HTTP, stateless, with an agent token (sk-svc-...). The methods (initialize, tools/list, tools/call), ` +
  `the tools with their inputs, outputs and scopes, batches, errors and limits are described by the agent protocol document at ` +
  `GET ${AGENT_PROTOCOL_PATH} (markdown, no authentication). A batch (an array, at most 20 messages) answers 200 with an array matched by id; ` +
  "a lone request answers with the HTTP status of its outcome (a tool's own failure is a 200 result with isError). Notifications only: 202, no body. " +
  'With `Accept: text/event-stream` only, a 200 answer comes as server-sent events (one `message` event per response). ' +
  `Rate limits: ${describeBudget('agent')} per token, every JSON-RPC request counted.`;

const jsonRpcError = (description: string) => ({
  description,
  headers: {
    'X-Request-Id': { $ref: '#/components/headers/XRequestId' },
    'Retry-After': { $ref: '#/components/headers/RetryAfter' },
    'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' },
    'X-RateLimit-Limit': { $ref: '#/components/headers/XRateLimitLimit' },
    'X-RateLimit-Remaining': { $ref: '#/components/headers/XRateLimitRemaining' },
    'X-RateLimit-Reset': { $ref: '#/components/headers/XRateLimitReset' },
  },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcErrorResponse' } } },
});

/** POST /mcp, registered by the MCP plugin (src/transports/mcp). */
export const MCP_ROUTES: readonly DocumentedRoute[] = [
  {
    documentedOnly: true,
    method: 'POST',
    path: '/mcp',
    tag: 'agent',
    operationId: 'mcp',
    summary: 'Agent tool protocol (JSON-RPC 2.0)',
    description: MCP_DESCRIPTION,
    security: 'bearer',
    body: {
      name: 'JsonRpcRequestBody',
      schema: z.union([JsonRpcMessageSchema, z.array(JsonRpcMessageSchema)]),
      required: true,
      description: 'One JSON-RPC message, or a batch (array)',
    },
    headers: {
      'MCP-Protocol-Version': 'The negotiated protocol version (required with the stateless 2026-07-28 revision)',
      'Mcp-Method': 'Mirror of the body `method` (stateless revision)',
      'Mcp-Name': 'Mirror of the tool name of a tools/call (stateless revision)',
    },
    success: [
      {
        status: 200,
        description: 'The JSON-RPC response (an object), or the responses of a batch (an array); as server-sent events when only text/event-stream is accepted',
        body: { name: 'JsonRpcResponseBody', schema: z.union([JsonRpcResponseSchema, z.array(JsonRpcResponseSchema)]) },
        media: { 'text/event-stream': { type: 'string' } },
      },
      { status: 202, description: 'Only notifications or responses were sent: accepted, no body' },
    ],
    rawResponses: {
      '4XX': jsonRpcError(
        'A refused request as a JSON-RPC error: 400 (parse error, invalid request, header mismatch, unsupported protocol version), 401 (token), 403 (missing scope; Host or Origin not this service), 413, 415, 429 (rate limit, with Retry-After)',
      ),
      '5XX': jsonRpcError('Internal error (500; retry once) or the 8 s gateway budget spent (504)'),
    },
  },
  ...(['GET', 'PUT', 'PATCH', 'DELETE'] as const).map(
    (method): DocumentedRoute => ({
      documentedOnly: true,
      method,
      path: '/mcp',
      tag: 'agent',
      operationId: `mcp${method[0]}${method.slice(1).toLowerCase()}NotAllowed`,
      summary: `${method} is not supported at /mcp`,
      description: 'The server opens no server-initiated stream and keeps no sessions: only POST is served (405 with `Allow: POST`).',
      security: 'none',
      success: [],
      rawResponses: {
        '403': jsonRpcError('Host or Origin is not this service (DNS-rebinding protection)'),
        '405': {
          ...jsonRpcError('Only POST is served'),
          headers: { ...jsonRpcError('').headers, Allow: { description: 'The allowed method', schema: { type: 'string', enum: ['POST'] } } },
        },
      },
    }),
  ),
];

// ---------------------------------------------------------------------------------------------
// Handlers of the service routes.

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fluxdesk REST API</title>
<link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/assets/init.js"></script></body></html>`;
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#ui', deepLinking: true });`;
const ASSETS: Record<string, string> = { 'swagger-ui.css': 'text/css; charset=utf-8', 'swagger-ui-bundle.js': 'text/javascript; charset=utf-8' };

/** The service routes' documentation (for the document), in the order they are listed. */
export const SERVICE_ROUTE_DOCS: readonly RouteDocBase[] = [HEALTH, READY, OPENAPI, DOCS, DOCS_ASSET];

export interface ServiceRouteOptions {
  deps: AppDeps;
  errorsBaseUrl: string;
  serviceVersion: string;
  /** The served document's text (built once all routes are registered). */
  openapiText: () => string;
}

export function serviceRoutes(o: ServiceRouteOptions): HandlerRoute[] {
  return [
    { ...HEALTH, handler: async () => ({ ok: true, version: o.serviceVersion, serverTime: o.deps.clock.now().toISOString() }) },
    {
      ...READY,
      // Readiness: 200 when PostgreSQL (migrations current) and Redis (when configured) answer; 503 problem
      // naming what fails, and 503 for good once the process drains (README "Probes").
      handler: async (req, reply) => {
        const r = await o.deps.readiness.check();
        if (r.ready) return reply.header('cache-control', 'no-store').send({ ok: true, version: o.serviceVersion, checks: r.checks });
        const detail = r.draining
          ? 'the process is shutting down'
          : `not ready: ${r.failing.map((f) => (r.reasons[f] && f === 'partitions' ? `${f} (${r.reasons[f]})` : f)).join(', ')} failing`;
        reply.header('cache-control', 'no-store');
        return sendProblem(
          reply,
          req,
          new DomainError('unavailable', detail, { code: 'not_ready', retryAfterSeconds: 5, extra: { failing: r.failing, checks: r.checks } }),
          o.errorsBaseUrl,
        );
      },
    },
    { ...OPENAPI, handler: async (_req, reply) => reply.type('application/json; charset=utf-8').send(o.openapiText()) },
    { ...DOCS, handler: async (_req, reply) => reply.headers(PAGE_SECURITY_HEADERS).type('text/html; charset=utf-8').send(DOCS_HTML) },
    {
      ...DOCS_ASSET,
      handler: async (req, reply) => {
        const file = (req.params as { file: string }).file;
        if (file === 'init.js') return reply.header('x-content-type-options', 'nosniff').type('text/javascript; charset=utf-8').send(DOCS_INIT);
        const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
        if (!type) return reply.callNotFound();
        return reply
          .type(type)
          .headers({ 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' })
          .send(readFileSync(path.join(swaggerDir, file)));
      },
    },
  ];
}
