// The served OpenAPI 3.1 document, generated from the route declarations that also register the
// routes (REST v1 here, the older endpoints in http/route-legacy.ts) and from the zod schemas the
// runner validates with; nothing is copied by hand. JSON Schema comes from zod 4's own
// z.toJSONSchema (no extra dependency; the declarations name their components themselves).
import { readFileSync } from 'node:fs';
import type { DocumentedRoute, NamedSchema, RouteDecl, RouteDocBase, SuccessDoc } from '../http/route-declaration.js';
import { LEGACY_ROUTES } from '../http/route-legacy.js';
import { CatalogItemDeleteBlockersSchema } from '../../domain/catalog/catalog-items.schemas.js';
import { REQUEST_ID_CHARS, REQUEST_LIMITS } from '../../domain/request.limits.js';
import { errorResponses, HEADERS, js, legacyErrorSchema, problemSchema, ref, SERVICE_CLOSING, successHeaders, type Json } from './openapi-kit.js';
import { EVENT_ROUTES } from './events.js';
import { TOOLS_ROUTES } from './tokens.js';
import { CATALOG_ITEM_ROUTES } from './catalog-items.js';
import { AlertResult, INTEGRATION_ROUTES } from './integrations.js';
import { JsonRpcErrorResponseSchema, MCP_ROUTES, METRICS_ROUTE, SERVICE_ROUTE_DOCS } from './service-routes.js';

/** Every REST v1 route served by the rest-v1 plugin with an operation. */
export const REST_V1_ROUTES: readonly RouteDecl[] = [...EVENT_ROUTES, ...TOOLS_ROUTES, ...CATALOG_ITEM_ROUTES, ...INTEGRATION_ROUTES];

/** The package version, read once: from src/ (tsx) and dist/src/ (the build) alike, the nearest package.json up. */
export const PACKAGE_VERSION: string = (() => {
  for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'fluxdesk' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: one level up
    }
    if (dir.pathname === '/') throw new Error('package.json of fluxdesk not found above src/transports/rest-v1');
  }
})();

const TAGS = [
  {
    name: 'events',
    description: "Publish events to the token owner's inbox, read them back, resolve and supplement them (personal tokens); fan out with a tools-token.",
  },
  { name: 'tokens', description: 'Claim (mint or rotate) personal tokens for pre-approved employees with an admin tools-token.' },
  { name: 'catalog-approvals', description: 'Assign, list, review and revoke catalog approvals (admin tools-token).' },
  { name: 'catalog-items', description: 'Manage catalog items (admin tools-token).' },
  { name: 'introspection', description: 'Event types and the integrator registry.' },
  {
    name: 'integrations',
    description: 'Receivers for monitoring webhooks (Prometheus Alertmanager, Grafana): each alert one event, with a personal token as bearer.',
  },
  { name: 'service', description: 'Liveness, readiness and metrics probes (no authentication).' },
  { name: 'docs', description: 'This document and its interactive viewer (no authentication).' },
  {
    name: 'agent',
    description: 'The agent tool protocol: JSON-RPC 2.0 at /mcp with an agent token; described in full by GET /api/internal-os/agent/protocol.',
  },
  {
    name: 'legacy',
    description:
      'The older endpoints under /api/internal-os/* (SPEC section B): the same operations as REST v1 with the legacy error body `{error, message, ...}`; the removed version 1 paths answer 410.',
  },
];

export interface OpenApiOptions {
  /** Document GET /metrics (it is served on the main listener: METRICS_PORT unset). Default true. */
  metrics?: boolean;
}

/** Components registry: a name is one schema (the same declaration may be named by several routes). */
class Schemas {
  readonly all: Record<string, Json> = {};
  private readonly text = new Map<string, string>();

  add(n: NamedSchema, io: 'input' | 'output'): Json {
    const schema = { ...js(n.schema, io), ...(n.description ? { description: n.description } : {}) };
    const text = JSON.stringify(schema);
    const seen = this.text.get(n.name);
    if (seen !== undefined && seen !== text) throw new Error(`OpenAPI: two different schemas are named ${n.name}`);
    this.text.set(n.name, text);
    this.all[n.name] = schema;
    return ref(n.name);
  }
}

function parameters(r: RouteDocBase): Json[] {
  const op = (r as Partial<DocumentedRoute>).op;
  const out: Json[] = [{ $ref: '#/components/parameters/XRequestId' }];
  if (op?.idempotent) out.push({ $ref: '#/components/parameters/IdempotencyKey' });
  for (const [name, { description, ...schema }] of Object.entries(r.params ?? {}))
    out.push({ name, in: 'path', required: true, ...(description ? { description } : {}), schema });
  if (r.query) {
    const props = (js(r.query, 'output').properties ?? {}) as Record<string, Json>;
    for (const [name, { description, ...schema }] of Object.entries(props))
      out.push({ name, in: 'query', required: false, ...(description ? { description } : {}), schema });
  }
  for (const [name, description] of Object.entries(r.headers ?? {})) out.push({ name, in: 'header', required: false, description, schema: { type: 'string' } });
  return out;
}

function success(r: RouteDocBase, s: SuccessDoc, schemas: Schemas): Json {
  const content: Json = {};
  if (s.body) content['application/json'] = { schema: schemas.add(s.body, 'output') };
  for (const [type, schema] of Object.entries(s.media ?? {})) content[type] = { schema };
  const headers: Json = { ...successHeaders(r as RouteDecl) };
  for (const [name, description] of Object.entries(s.headers ?? {})) headers[name] = { description, schema: { type: 'string' } };
  return { description: s.description, headers, ...(Object.keys(content).length > 0 ? { content } : {}) };
}

function operation(r: RouteDocBase, envelope: 'problem' | 'legacy', schemas: Schemas): Json {
  const responses: Json = {};
  for (const s of r.success) responses[String(s.status)] = success(r, s, schemas);
  Object.assign(responses, r.rawResponses ?? errorResponses(r as RouteDecl, envelope));
  return {
    tags: [r.tag],
    operationId: r.operationId,
    summary: r.summary,
    description: r.description,
    ...(r.deprecated ? { deprecated: true } : {}),
    security: r.security === 'bearer' ? [{ bearer: [] }] : [],
    parameters: parameters(r),
    ...(r.body ? { requestBody: { required: r.body.required, content: { 'application/json': { schema: schemas.add(r.body, 'input') } } } } : {}),
    responses,
  };
}

/** The document GET /api/v1/openapi.json serves. */
export function buildOpenApi(publicBaseUrl: string, opts: OpenApiOptions = {}): Json {
  const schemas = new Schemas();
  // Named by the problem schema (blockers) and by /mcp's error responses.
  schemas.add({ name: 'CatalogItemDeleteBlockers', schema: CatalogItemDeleteBlockersSchema }, 'output');
  schemas.add({ name: 'JsonRpcErrorResponse', schema: JsonRpcErrorResponseSchema }, 'output');
  // Named by the problem schema (results of alerts_refused).
  schemas.add(AlertResult, 'output');
  const paths: Record<string, Json> = {};
  const place = (routes: readonly RouteDocBase[], envelope: 'problem' | 'legacy') => {
    for (const r of routes) {
      const item = (paths[r.path] ??= {});
      const method = r.method.toLowerCase();
      if (item[method]) throw new Error(`OpenAPI: ${r.method} ${r.path} is declared twice`);
      item[method] = operation(r, envelope, schemas);
    }
  };
  place(REST_V1_ROUTES, 'problem');
  place(SERVICE_ROUTE_DOCS, 'problem');
  if (opts.metrics !== false) place([METRICS_ROUTE], 'problem');
  place(MCP_ROUTES, 'problem');
  place(LEGACY_ROUTES, 'legacy');

  return {
    openapi: '3.1.0',
    info: {
      title: 'fluxdesk API',
      version: PACKAGE_VERSION,
      description:
        'Inbound events, token claims, catalog and introspection (REST v1, problem+json errors); the older endpoints under /api/internal-os/* ' +
        '(tag legacy); the agent tool protocol at /mcp (JSON-RPC 2.0, tag agent). The inbound protocol text is at GET /api/internal-os/integrations/protocol. ' +
        'Every response carries X-Request-Id; authenticated calls report their rate-limit budget in X-RateLimit-*.',
      contact: { name: 'fluxdesk maintainers', url: `${publicBaseUrl}/api/internal-os/integrations/protocol` },
      // package.json is private with no license: an internal service, not published under one
      // (SPDX `LicenseRef-` names a license that is not on the SPDX list).
      license: { name: 'Proprietary (internal service)', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: publicBaseUrl, description: 'This service (PUBLIC_BASE_URL)' }],
    tags: TAGS,
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Personal token (svc-in-pers-...), tools-token (svc-tools-...) or, at /mcp, agent token (sk-svc-...); only in the Authorization header, never in the query string',
        },
      },
      parameters: {
        XRequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description: 'Your request id (echoed back); else one is generated',
          schema: { type: 'string', maxLength: REQUEST_LIMITS.requestIdMax, pattern: `^[${REQUEST_ID_CHARS}]+$` },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: `Scoped to (token, operation): the same key with the same body replays the first answer for ${REQUEST_LIMITS.idempotencyKeptHours} h; with another body, or while the first is in flight, 409`,
          schema: { type: 'string', minLength: 1, maxLength: REQUEST_LIMITS.idempotencyKeyMax },
        },
      },
      headers: HEADERS,
      schemas: {
        ...schemas.all,
        Problem: problemSchema(),
        LegacyError: legacyErrorSchema(),
        ServiceClosing: SERVICE_CLOSING,
      },
    },
  };
}
