// One JSON body parser for the JSON surfaces: UTF-8 only (fatal decoding), charset checked,
// prototype-poisoning keys refused (secure-json-parse, as Fastify's own parser), nesting bounded;
// malformed JSON reported as a DomainError the surface maps to its own body.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { DomainError, type Issue } from '../../domain/errors.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Deepest nesting of objects and arrays a JSON body may have. The deepest legitimate body (an MCP
 * batch carrying a tool's arguments) is about 8 levels; code that walks a value recursively (schema
 * validation, the Idempotency-Key fingerprint) overflows the stack at a few thousand.
 */
export const MAX_JSON_DEPTH = 64;

export type JsonParsed = { ok: true; value: unknown } | { ok: false; issue: Issue };

/** True when `v` nests objects / arrays deeper than `levels` (recursion stops there). */
function deeperThan(v: unknown, levels: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (levels === 0) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (deeperThan(v[i], levels - 1)) return true;
    return false;
  }
  for (const k in v) if (deeperThan((v as Record<string, unknown>)[k], levels - 1)) return true;
  return false;
}

/** Bytes (strict UTF-8) or text -> a JSON value, or the one issue that refuses the whole body. */
export function parseJson(body: Uint8Array | string): JsonParsed {
  let text: string;
  try {
    text = typeof body === 'string' ? body : decoder.decode(body);
  } catch {
    return { ok: false, issue: { field: '', code: 'malformed_json', message: 'body is not valid UTF-8' } };
  }
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (e) {
    const message = (e as Error).message;
    if (message.includes('forbidden prototype property')) {
      return { ok: false, issue: { field: '', code: 'forbidden_key', message: 'a "__proto__" key, or a "constructor" object with a "prototype" key, is not accepted' } };
    }
    return { ok: false, issue: { field: '', code: 'malformed_json', message: `body is not valid JSON: ${message}` } };
  }
  if (deeperThan(value, MAX_JSON_DEPTH)) {
    return { ok: false, issue: { field: '', code: 'too_deep', message: `objects and arrays may nest at most ${MAX_JSON_DEPTH} levels deep` } };
  }
  return { ok: true, value };
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  // JSON only: Fastify's built-in text/plain parser would hand a string to the operation (415 instead).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const ct = String(req.headers['content-type'] ?? '');
    const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(ct)?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(new DomainError('unsupported_media_type', 'Content-Type charset must be utf-8', { code: 'unsupported_media_type' }), undefined);
      return;
    }
    const buf = body as Buffer;
    if (buf.length === 0) {
      done(null, undefined);
      return;
    }
    const parsed = parseJson(buf);
    if (parsed.ok) done(null, parsed.value);
    else done(new DomainError('validation', parsed.issue.message, { code: parsed.issue.code, issues: [parsed.issue] }), undefined);
  });
}

/**
 * Inbound event POSTs (SPEC "Requirements for the inbound POST", both endpoints) need an explicit
 * Content-Length: chunked transfer is refused with 411 before the body is read.
 */
export async function requireContentLength(req: FastifyRequest): Promise<void> {
  if (req.headers['content-length'] === undefined || req.headers['transfer-encoding'] !== undefined) {
    throw new DomainError('length_required', 'an explicit Content-Length is required; chunked transfer is not accepted', { code: 'length_required' });
  }
}

/** Fastify's own errors (size, media type) as DomainErrors, so every surface maps them alike. */
export function fastifyErrorToDomain(err: unknown): DomainError | null {
  if (err instanceof DomainError) return err;
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('payload_too_large', 'body larger than 256 KB', { code: 'payload_too_large' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new DomainError('unsupported_media_type', 'Content-Type must be application/json', { code: 'unsupported_media_type' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new DomainError('validation', 'body is not valid JSON', { code: 'malformed_json', issues: [{ field: '', code: 'malformed_json', message: 'body is not valid JSON' }] });
    default:
      if ((err as { statusCode?: number }).statusCode === 404) return new DomainError('not_found', 'route not found', { code: 'not_found' });
      return null;
  }
}

const TOKEN_QUERY_KEYS = new Set(['token', 'access_token', 'api_key', 'apikey', 'authorization', 'auth_token']);

/** A token in the query string is refused before anything else (SPEC Authentication 10). */
export function tokenInQuery(url: string): boolean {
  const q = url.indexOf('?');
  if (q === -1) return false;
  for (const k of new URLSearchParams(url.slice(q + 1)).keys()) if (TOKEN_QUERY_KEYS.has(k.toLowerCase())) return true;
  return false;
}

export function pathOnly(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
