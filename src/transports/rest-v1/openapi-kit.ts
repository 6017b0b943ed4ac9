// Building blocks of the OpenAPI document: JSON Schema from the operations' own zod schemas
// (zod 4's z.toJSONSchema), the error responses of a declared route (its pipeline's codes plus its
// own), the problem and legacy error schemas with their extension members per code, common headers.
import { z } from 'zod';
import type { ErrorKind } from '../../domain/errors.js';
import { budgetWindow, describeBudget } from '../../domain/rate-budgets.rules.js';
import type { RouteDecl } from '../http/route-declaration.js';
import { HTTP_STATUS } from '../http/status.js';

export type Json = Record<string, unknown>;

export const js = (s: z.ZodType, io: 'input' | 'output'): Json => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Json;
  return rest;
};

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The five 401 codes of bearer authentication (SPEC Authentication 3). */
export const AUTH_CODES = ['missing_or_invalid_authorization', 'invalid_token_format', 'token_not_found', 'token_mismatch', 'token_revoked'] as const;

/** Methods whose request body Fastify reads (and parses: 400 / 413 / 415 before the operation runs). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Every error code a declared route can answer, by kind: the shared edge (query-string tokens,
 * undecodable paths, body parsing), the operation runner's pipeline as the operation configures it
 * (auth kind, rate limit, Idempotency-Key, validation, storage), then the route's own codes.
 */
export function routeErrors(r: RouteDecl): Map<ErrorKind, Set<string>> {
  const out = new Map<ErrorKind, Set<string>>();
  const add = (kind: ErrorKind, ...codes: string[]) => {
    let s = out.get(kind);
    if (!s) out.set(kind, (s = new Set()));
    for (const c of codes) s.add(c);
  };
  // The root onRequest hook refuses a token in the query string on every route (SPEC Authentication 10).
  add('validation', 'token_in_query');
  // A path that does not decode (server.ts frameworkErrors): in the legacy body only under
  // /api/internal-os/, so the version 1 paths at /inbound/ (problem+json then) do not list it.
  if (r.path.includes('{') && !r.path.startsWith('/inbound/')) add('validation', 'invalid_path');
  if (BODY_METHODS.has(r.method)) {
    add('validation', 'malformed_json', 'forbidden_key', 'too_deep');
    add('payload_too_large', 'payload_too_large');
    add('unsupported_media_type', 'unsupported_media_type');
  }
  const op = 'op' in r ? r.op : undefined;
  if (op) {
    add('validation', 'schema_invalid');
    if (op.auth.kind === 'inbound' || op.auth.kind === 'agent') add('unauthenticated', ...AUTH_CODES);
    // A token suspended by its circuit breaker answers 429 on every inbound call.
    if (op.auth.kind === 'inbound' && !op.auth.whileSuspended) add('rate_limited', 'circuit_open');
    if (op.budget !== null) add('rate_limited', 'rate_limited');
    if (op.idempotent) {
      add('conflict', 'idempotency_key_reused', 'idempotency_in_flight');
      add('unavailable', 'idempotency_unavailable');
    }
    add('unavailable', 'unavailable', 'conflict_retry');
    add('internal', 'internal');
  }
  for (const table of [r.onRequestErrors, r.errors]) {
    for (const [kind, codes] of Object.entries(table ?? {}) as [ErrorKind, readonly string[]][]) add(kind, ...codes);
  }
  return out;
}

export const statusOf = (kind: ErrorKind): number => HTTP_STATUS[kind].status;

const PUBLISH_PER_MINUTE = budgetWindow('publish', 'minute').limit;
const REQUEST_PER_MINUTE = budgetWindow('request', 'minute').limit;

const STATUS_TEXT: Record<number, string> = {
  400: 'Validation failed (every issue at once), or the request is refused as a whole (malformed JSON, a token in the query string)',
  401: 'Missing, malformed, unknown, mismatched or revoked token',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  411: 'An explicit Content-Length is required (chunked transfer is refused)',
  413: 'Body over the size limit (256 KB)',
  415: 'Content-Type is not application/json (utf-8)',
  422: 'Unprocessable',
  429: `Rate limited (per token: ${PUBLISH_PER_MINUTE}/min for publishing, claims, catalog and integrators; ${REQUEST_PER_MINUTE}/min counted apart for read-back, resolve, supplement, event types and pings), or the token is suspended by its circuit breaker (circuit_open, with suspended_until)`,
  500: 'Internal error; retry',
  503: 'Temporarily unavailable (storage, the Idempotency-Key store, a transaction conflict); retry after Retry-After',
};

/** Extension members of problem (and legacy error) bodies, by the code that carries them. */
export const EXTENSIONS: Record<string, { required: readonly string[] }> = {
  user_not_found: { required: ['email'] },
  domain_not_allowed: { required: ['email', 'domain'] },
  inbound_no_approval: { required: ['target_email', 'catalog_slug'] },
  no_approved_request: { required: ['email'] },
  user_inactive: { required: ['email'] },
  slug_taken: { required: ['slug'] },
  tools_token_not_owned: { required: ['field'] },
  delete_blocked: { required: ['blockers'] },
  circuit_open: { required: ['suspended_until'] },
  not_ready: { required: ['failing', 'checks'] },
  alerts_refused: { required: ['results'] },
};

/** The documented extension members (all optional; which code requires which: EXTENSIONS). */
function extensionProperties(): Json {
  return {
    email: { type: 'string', description: 'The email concerned (user_not_found, domain_not_allowed, no_approved_request, user_inactive)' },
    domain: { type: 'string', description: 'Its email domain, outside the company allowlist (domain_not_allowed)' },
    target_email: { type: 'string', description: 'The employee named by `target_email` (inbound_no_approval)' },
    catalog_slug: { type: ['string', 'null'], description: "The slug of the caller's catalog row (inbound_no_approval)" },
    slug: { type: 'string', description: 'The slug already taken (slug_taken)' },
    field: { type: 'string', description: 'The request field refused (tools_token_not_owned)' },
    reason: {
      type: 'string',
      enum: ['project_not_found', 'project_archived'],
      description: 'Why project_slug was refused (cross_project_blocked on the bulk endpoint)',
    },
    blockers: { ...ref('CatalogItemDeleteBlockers'), description: 'Live dependents refusing a hard delete (delete_blocked)' },
    suspended_until: { type: 'string', format: 'date-time', description: 'When the circuit breaker lets the token publish again (circuit_open)' },
    failing: { type: 'array', items: { type: 'string' }, description: 'Dependencies failing the readiness check, or `draining` (not_ready)' },
    checks: { type: 'object', additionalProperties: { type: 'string', enum: ['ok', 'failing'] }, description: 'Each dependency and its state (not_ready)' },
    results: {
      type: 'array',
      items: ref('MonitoringAlertResult'),
      description: 'One result per alert of the payload, refused ones with their `errors` (alerts_refused)',
    },
  };
}

/** `if code is X then X's members are present`, for every code with extension members. */
function requiredByCode(codeMember: string): Json[] {
  return Object.entries(EXTENSIONS).map(([code, e]) => ({
    if: { properties: { [codeMember]: { const: code } }, required: [codeMember] },
    // `{}`: the member is the one described under `properties` (a sibling rule needs it named here).
    // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword (if/then), not a thenable.
    then: { required: e.required, properties: Object.fromEntries(e.required.map((m) => [m, {}])) },
  }));
}

/** SPEC "REST v1 error envelope" as problem.ts renders it. Open: RFC 7807 lets a type add members. */
export function problemSchema(): Json {
  return {
    type: 'object',
    description:
      'RFC 7807 problem details. Clients route on `type` (or `code`), never on `detail`. Validation failures carry every issue in `errors` and `fieldErrors`. ' +
      'Extension members by code: ' +
      Object.entries(EXTENSIONS)
        .map(([code, e]) => `${code}: ${e.required.join(', ')}`)
        .join('; ') +
      '; cross_project_blocked on the bulk endpoint: reason.',
    required: ['type', 'title', 'status', 'detail', 'instance', 'requestId', 'code'],
    properties: {
      type: { type: 'string', format: 'uri', description: 'Stable error-class URI `{errors_base}/<slug>`' },
      title: { type: 'string' },
      status: { type: 'integer', minimum: 100, maximum: 599 },
      detail: { type: 'string' },
      instance: { type: 'string', description: 'The request path (a URI reference)' },
      requestId: { type: 'string' },
      code: { type: 'string', description: 'Stable machine code (the codes of each response are listed with it)' },
      fieldErrors: {
        type: 'object',
        additionalProperties: { type: 'array', items: { type: 'string' } },
        description: 'Field path -> messages (validation failures)',
      },
      errors: {
        type: 'array',
        description: 'Every validation issue (validation failures)',
        items: {
          type: 'object',
          required: ['field', 'code', 'message'],
          properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
        },
      },
      ...extensionProperties(),
    },
    allOf: requiredByCode('code'),
  };
}

/** SPEC "Legacy 400 body" and the older endpoints' other errors (`{error: <code>, message, ...}`). */
export function legacyErrorSchema(): Json {
  return {
    type: 'object',
    description:
      'Error body of the older /api/internal-os/* endpoints (not problem+json). `error` is the machine code; a validation failure adds ' +
      '`reason` and `field` (those of the first issue) and `errors` (every issue). Other errors carry the extension members of the problem body.',
    required: ['error', 'message'],
    properties: {
      error: { type: 'string' },
      message: { type: 'string' },
      reason: { type: 'string', description: "The first issue's code (validation), or why project_slug was refused (cross_project_blocked)" },
      field: { type: 'string', description: "The first issue's field (validation), or the field refused" },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          required: ['field', 'reason', 'message'],
          properties: { field: { type: 'string' }, reason: { type: 'string' }, message: { type: 'string' } },
        },
      },
      // `field` and `reason` are the validation members above (bulk's cross_project_blocked reason is a string too).
      ...(({ field: _f, reason: _r, ...rest }) => rest)(extensionProperties()),
    },
    allOf: requiredByCode('error'),
  };
}

/** Fastify's own answer to a request that arrives while the process closes (before any hook runs). */
export const SERVICE_CLOSING = {
  type: 'object',
  description: 'Sent by the HTTP server itself while the process shuts down (no X-Request-Id)',
  required: ['error', 'message', 'statusCode'],
  properties: { error: { type: 'string' }, message: { type: 'string' }, statusCode: { type: 'integer', const: 503 } },
};

export const HEADERS: Record<string, Json> = {
  XRequestId: { description: "The request id: the caller's X-Request-Id when valid, else a generated `req_<id>`", required: true, schema: { type: 'string' } },
  XRequestIdUnlessClosing: { description: 'The request id (absent on the answer the server sends while it shuts down)', schema: { type: 'string' } },
  XRateLimitLimit: {
    description: `The per-token budget this call counted against (${describeBudget('publish')} for publishing and tools-token management, ${describeBudget('request')} for read-back, resolve, supplement, event types and pings)`,
    schema: { type: 'integer', minimum: 0 },
  },
  XRateLimitRemaining: { description: 'Calls left in the window', schema: { type: 'integer', minimum: 0 } },
  XRateLimitReset: { description: 'Unix seconds when the window frees a slot', schema: { type: 'integer', minimum: 0 } },
  RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
  WWWAuthenticate: { description: 'Bearer challenge (RFC 6750)', schema: { type: 'string' } },
  IdempotentReplayed: {
    description: '`true` when the answer is replayed from an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};

const RATE_HEADERS = {
  'X-RateLimit-Limit': headerRef('XRateLimitLimit'),
  'X-RateLimit-Remaining': headerRef('XRateLimitRemaining'),
  'X-RateLimit-Reset': headerRef('XRateLimitReset'),
};
/** A 429 always reports the budget that refused it, and when to retry. */
const RATE_HEADERS_429 = {
  'X-RateLimit-Limit': { ...HEADERS.XRateLimitLimit, required: true },
  'X-RateLimit-Remaining': { ...HEADERS.XRateLimitRemaining, required: true },
  'X-RateLimit-Reset': { ...HEADERS.XRateLimitReset, required: true },
  'Retry-After': { ...HEADERS.RetryAfter, required: true },
};

/** Headers of a success answer. */
export function successHeaders(r: RouteDecl): Json {
  const op = 'op' in r ? r.op : undefined;
  return {
    'X-Request-Id': headerRef('XRequestId'),
    ...(op?.budget ? RATE_HEADERS : {}),
    ...(op?.idempotent ? { 'Idempotent-Replayed': headerRef('IdempotentReplayed') } : {}),
  };
}

/** Headers of an error answer with this status. */
function errorHeaders(r: RouteDecl, status: number): Json {
  const op = 'op' in r ? r.op : undefined;
  // The server's own 503 while it closes comes before the hook that sets X-Request-Id.
  const h: Json = { 'X-Request-Id': headerRef(status === 503 ? 'XRequestIdUnlessClosing' : 'XRequestId') };
  // A call counted before it failed reports its budget; a 429 always does, with Retry-After.
  if (status === 429) Object.assign(h, RATE_HEADERS_429);
  else if (op?.budget && status !== 401) Object.assign(h, RATE_HEADERS);
  if (status === 503 || status === 409) h['Retry-After'] = headerRef('RetryAfter');
  if (status === 401) h['WWW-Authenticate'] = headerRef('WWWAuthenticate');
  return h;
}

/**
 * The error responses of a route, one per status, each naming the codes it can carry (`code` of a
 * problem, `error` of a legacy body, restricted to them in the schema).
 */
export function errorResponses(r: RouteDecl, envelope: 'problem' | 'legacy'): Record<string, Json> {
  const byStatus = new Map<number, Set<string>>();
  for (const [kind, codes] of routeErrors(r)) {
    const status = statusOf(kind);
    const s = byStatus.get(status) ?? new Set<string>();
    for (const c of codes) s.add(c);
    byStatus.set(status, s);
  }
  // Any route answers 503 while the process closes (Fastify's own body, before any hook runs).
  if (!byStatus.has(503)) byStatus.set(503, new Set());
  const member = envelope === 'problem' ? 'code' : 'error';
  const out: Record<string, Json> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = [...byStatus.get(status)!].sort();
    const closing = status === 503 ? ' While the process shuts down the HTTP server answers ServiceClosing.' : '';
    const content: Json = {};
    const body =
      codes.length === 0
        ? undefined
        : { allOf: [ref(envelope === 'problem' ? 'Problem' : 'LegacyError'), { type: 'object', properties: { [member]: { type: 'string', enum: codes } } }] };
    if (envelope === 'problem') {
      if (body) content['application/problem+json'] = { schema: body };
      if (status === 503) content['application/json'] = { schema: ref('ServiceClosing') };
    } else {
      const alternatives = [body, status === 503 ? ref('ServiceClosing') : undefined].filter((x) => x !== undefined);
      content['application/json'] = { schema: alternatives.length === 1 ? alternatives[0] : { anyOf: alternatives } };
    }
    out[String(status)] = {
      description:
        codes.length > 0
          ? `${STATUS_TEXT[status] ?? statusTitle(status)}. \`${member}\`: ${codes.join(', ')}.${closing}`
          : 'The process is shutting down; retry on another instance.',
      headers: errorHeaders(r, status),
      content,
    };
  }
  return out;
}

const statusTitle = (status: number): string => Object.values(HTTP_STATUS).find((s) => s.status === status)?.title ?? 'Error';
