// DomainError -> legacy bodies (SPEC "Legacy 400 body"). Total over ErrorKind.
import type { FastifyReply } from 'fastify';
import type { DomainError, ErrorKind } from '../../domain/errors.js';
import { setRateLimitHeaders } from '../http/invoke.js';

const STATUS: Record<ErrorKind, number> = {
  unauthenticated: 401,
  forbidden: 403,
  validation: 400,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  payload_too_large: 413,
  unsupported_media_type: 415,
  length_required: 411,
  gone: 410,
  unprocessable: 422,
  unavailable: 503,
  internal: 500,
};

export function legacyBody(err: DomainError): Record<string, unknown> {
  if (err.kind === 'validation') {
    const errors = err.issues.map((i) => ({ field: i.field, reason: i.code, message: i.message }));
    const first = errors[0] ?? { field: '', reason: err.code, message: err.message };
    // `schema_invalid`, or the request-level code (`malformed_json`, `token_in_query`).
    const error = err.code;
    return { error, reason: first.reason, field: first.field, message: first.message, errors };
  }
  return { error: err.code, message: err.message, ...err.extra };
}

export function sendLegacyError(reply: FastifyReply, err: DomainError): FastifyReply {
  if (err.rateLimit) setRateLimitHeaders(reply, { ...err.rateLimit, retryAfterSeconds: err.retryAfterSeconds });
  else if (err.retryAfterSeconds !== undefined) reply.header('retry-after', err.retryAfterSeconds);
  return reply.code(STATUS[err.kind]).type('application/json; charset=utf-8').send(legacyBody(err));
}
