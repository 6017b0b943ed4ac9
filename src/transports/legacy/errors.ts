// DomainError -> legacy bodies (SPEC "Legacy 400 body"). Status from the one HTTP status table
// (http/status.ts); headers from the one header writer (http/response-headers.ts).
import type { FastifyReply } from 'fastify';
import type { DomainError } from '../../domain/errors.js';
import { header } from '../http/invoke.js';
import { setErrorHeaders } from '../http/response-headers.js';
import { httpStatus } from '../http/status.js';

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
  setErrorHeaders((k, v) => reply.header(k, v), err, header(reply.request, 'authorization'));
  return reply.code(httpStatus(err)).type('application/json; charset=utf-8').send(legacyBody(err));
}
