// DomainError -> RFC 7807 problem+json (SPEC "REST v1 error envelope"). Status and title from the
// one HTTP status table (http/status.ts); headers from the one header writer (http/response-headers.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorTypeSlug, type DomainError } from '../../domain/errors.js';
import { pathOnly } from '../http/json-body.js';
import { header } from '../http/invoke.js';
import { setErrorHeaders } from '../http/response-headers.js';
import { httpStatus, problemTitle } from '../http/status.js';

export function problemBody(err: DomainError, errorsBase: string, instance: string, requestId: string): Record<string, unknown> {
  const slug = errorTypeSlug(err);
  const body: Record<string, unknown> = {
    type: `${errorsBase}/${slug}`,
    title: problemTitle(err, slug),
    status: httpStatus(err),
    detail: err.message,
    instance,
    requestId,
    code: err.code,
  };
  if (err.issues.length > 0) {
    // Field names are the caller's keys (`toString`, `__proto__`...): a map without a prototype.
    const fieldErrors: Record<string, string[]> = Object.create(null);
    for (const i of err.issues) (fieldErrors[i.field || '(body)'] ??= []).push(i.message);
    body.fieldErrors = fieldErrors;
    body.errors = err.issues.map((i) => ({ field: i.field, code: i.code, message: i.message }));
  }
  return { ...body, ...err.extra };
}

export function sendProblem(reply: FastifyReply, req: FastifyRequest, err: DomainError, errorsBase: string): FastifyReply {
  setErrorHeaders((k, v) => reply.header(k, v), err, header(req, 'authorization'));
  return reply
    .code(httpStatus(err))
    .type('application/problem+json')
    .send(problemBody(err, errorsBase, pathOnly(req.url), req.id));
}
