// The one JSON body parser of the JSON surfaces (REST v1, legacy, MCP): one media-type and charset
// rule, UTF-8 only (fatal decoding; a leading BOM is dropped, RFC 8259 §8.1), prototype-poisoning
// keys refused (secure-json-parse, as Fastify's own parser), nesting bounded. It decides; each
// surface answers the decision in its own envelope (REST problem+json, legacy {error}, MCP
// JSON-RPC -32700 / -32600).
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
      return {
        ok: false,
        issue: { field: '', code: 'forbidden_key', message: 'a "__proto__" key, or a "constructor" object with a "prototype" key, is not accepted' },
      };
    }
    return { ok: false, issue: { field: '', code: 'malformed_json', message: `body is not valid JSON: ${message}` } };
  }
  if (deeperThan(value, MAX_JSON_DEPTH)) {
    return { ok: false, issue: { field: '', code: 'too_deep', message: `objects and arrays may nest at most ${MAX_JSON_DEPTH} levels deep` } };
  }
  return { ok: true, value };
}

const unsupported = (message: string) => new DomainError('unsupported_media_type', message, { code: 'unsupported_media_type' });

/**
 * The one Content-Type rule (SPEC "Requirements for the inbound POST": `application/json;
 * charset=utf-8`): the media type `application/json`, with no charset or `charset=utf-8` (or
 * `utf8`, the other label the WHATWG Encoding Standard gives UTF-8, which this service always
 * accepted), both case-insensitive (the charset value may be quoted); other parameters are
 * ignored. null: accepted.
 */
export function contentTypeError(contentType: string): DomainError | null {
  const [type, ...params] = contentType.split(';');
  if (type!.trim().toLowerCase() !== 'application/json') return unsupported('Content-Type must be application/json');
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq === -1 || p.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const value = p
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (value !== 'utf-8' && value !== 'utf8') return unsupported('Content-Type charset must be utf-8');
  }
  return null;
}

/** The decision about a request body: its JSON value (undefined: no body), or the error refusing it whole. */
export type BodyRead = { ok: true; value: unknown } | { ok: false; error: DomainError };

/**
 * The one decision about a JSON request body, for every JSON surface. No body at all (zero bytes)
 * is `undefined` (the operation's input rules decide whether one was needed); a body needs a
 * Content-Type that passes contentTypeError (415 otherwise); then UTF-8, JSON, prototype keys and
 * depth (400 validation with `malformed_json`, `forbidden_key` or `too_deep`).
 */
export function readJsonBody(contentType: string | undefined, body: Uint8Array | undefined): BodyRead {
  if (contentType !== undefined) {
    const error = contentTypeError(contentType);
    if (error) return { ok: false, error };
  }
  if (body === undefined || body.length === 0) return { ok: true, value: undefined };
  if (contentType === undefined) return { ok: false, error: unsupported('Content-Type must be application/json') };
  const parsed = parseJson(body);
  if (parsed.ok) return parsed;
  return { ok: false, error: new DomainError('validation', parsed.issue.message, { code: parsed.issue.code, issues: [parsed.issue] }) };
}

/**
 * REST v1 and legacy: Fastify hands every `application/json` body (any parameters) to readJsonBody.
 * Other media types, and a body without Content-Type, are refused by Fastify itself with 415 before
 * the body is read (fastifyErrorToDomain): the same answer readJsonBody gives, without reading.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  // JSON only: Fastify's built-in text/plain parser would hand a string to the operation (415 instead).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const read = readJsonBody(String(req.headers['content-type'] ?? ''), body as Buffer);
    if (read.ok) done(null, read.value);
    else done(read.error, undefined);
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
    // Fastify's own JSON parser is left at the root (requests no surface route matches): Connect's
    // child scope adds an application/json parser, which Fastify refuses over an inherited custom one.
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new DomainError('validation', 'body is not valid JSON', {
        code: 'malformed_json',
        issues: [{ field: '', code: 'malformed_json', message: 'body is not valid JSON' }],
      });
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
