// DomainError -> RFC 7807 problem+json (SPEC "REST v1 error envelope"). Total over ErrorKind.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorTypeSlug, type DomainError, type ErrorKind } from '../../domain/errors.js';
import { pathOnly } from '../http/json-body.js';
import { setRateLimitHeaders } from '../http/invoke.js';

const PROBLEMS: Record<ErrorKind, { status: number; title: string }> = {
  unauthenticated: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  validation: { status: 400, title: 'Validation failed' },
  not_found: { status: 404, title: 'Not found' },
  conflict: { status: 409, title: 'Conflict' },
  rate_limited: { status: 429, title: 'Too many requests' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  length_required: { status: 411, title: 'Length required' },
  gone: { status: 410, title: 'Gone' },
  unprocessable: { status: 422, title: 'Unprocessable' },
  unavailable: { status: 503, title: 'Service unavailable' },
  internal: { status: 500, title: 'Internal error' },
};

const SLUG_TITLES: Record<string, string> = {
  'user-not-found': 'User not found',
  'domain-not-allowed': 'Email domain not allowed',
  'user-already-exists': 'User already exists',
  'inbound-no-approval': 'Employee has no approved request',
};

export function problemStatus(err: DomainError): number {
  return PROBLEMS[err.kind].status;
}

export function problemBody(err: DomainError, errorsBase: string, instance: string, requestId: string): Record<string, unknown> {
  const p = PROBLEMS[err.kind];
  const slug = errorTypeSlug(err);
  const body: Record<string, unknown> = {
    type: `${errorsBase}/${slug}`,
    title: SLUG_TITLES[slug] ?? p.title,
    status: p.status,
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
  if (err.rateLimit) setRateLimitHeaders(reply, { ...err.rateLimit, retryAfterSeconds: err.retryAfterSeconds });
  else if (err.retryAfterSeconds !== undefined) reply.header('retry-after', err.retryAfterSeconds);
  if (err.kind === 'unauthenticated') reply.header('www-authenticate', `Bearer error="invalid_token"`);
  return reply
    .code(PROBLEMS[err.kind].status)
    .type('application/problem+json')
    .send(problemBody(err, errorsBase, pathOnly(req.url), req.id));
}
