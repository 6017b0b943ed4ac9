// One JSON body parser for the JSON surfaces: UTF-8 only (fatal decoding), charset checked,
// malformed JSON reported as a DomainError the surface maps to its own body.
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../domain/errors.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

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
    let text: string;
    try {
      text = decoder.decode(buf);
    } catch {
      done(new DomainError('validation', 'body is not valid UTF-8', { code: 'malformed_json', issues: [{ field: '', code: 'malformed_json', message: 'body is not valid UTF-8' }] }), undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      done(new DomainError('validation', 'body is not valid JSON', { code: 'malformed_json', issues: [{ field: '', code: 'malformed_json', message: `body is not valid JSON: ${(e as Error).message}` }] }), undefined);
    }
  });
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
