// Shared building blocks of the OpenAPI document: JSON Schema from the operations' own zod
// schemas, references, problem responses, common headers.
import { z } from 'zod';

export const js = (s: z.ZodType, io: 'input' | 'output'): Record<string, unknown> => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
};

/** Query parameters from an input schema: the coerced (output) types, with their defaults. */
export function queryParams(schema: z.ZodObject, omit: readonly string[] = []): unknown[] {
  const props = (js(schema, 'output').properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(props)
    .filter(([name]) => !omit.includes(name))
    .map(([name, s]) => ({ name, in: 'query', required: false, schema: s }));
}

const ERROR_TEXT: Record<number, string> = {
  400: 'Validation failed (all issues at once)',
  401: 'Missing, malformed, unknown, mismatched or revoked token',
  403: 'Forbidden (caller not an admin tools-token, not the original sender, cross-project block, not approved)',
  404: 'Not found',
  409: 'Conflict (Idempotency-Key reused with another body or still in flight; slug taken; delete blocked)',
  413: 'Body over 256 KB',
  415: 'Content-Type is not application/json (utf-8)',
  422: 'Unprocessable (user-not-found, domain-not-allowed, inbound-no-approval)',
  429: 'Rate limited (per token: 60/min for publishing, bulk, claims, catalog and integrators; 600/min, counted apart, for read-back, resolve, supplement, event types and the tools-token ping; X-RateLimit-Limit names the budget that applied), or the token is suspended by its circuit breaker (same type, code circuit_open, suspended_until); Retry-After given',
  503: 'Storage unavailable; retry',
};

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: unknown) => ({ 'application/json': { schema } });
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ref('Problem') } } });
export const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [String(c), problem(ERROR_TEXT[c] ?? 'Error')]));
export const bearer = [{ bearer: [] }];
export const commonHeaders = [{ name: 'X-Request-Id', in: 'header', required: false, schema: { type: 'string', maxLength: 120, pattern: '^[A-Za-z0-9_-]+$' } }];
export const idem = { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 200 } };
export const rateHeaders = {
  'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'the per-token budget this call counted against: 60 per minute (publishing and tools-token management) or 600 per minute (read-back, resolve, supplement, event types, tools-token ping)' },
  'X-RateLimit-Remaining': { schema: { type: 'integer' } },
  'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix seconds' },
};

export interface OpenApiPart {
  schemas: Record<string, unknown>;
  paths: Record<string, unknown>;
}
