// DomainError -> RFC 7807 problem+json (SPEC "REST v1 error envelope"). Total over ErrorKind.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DomainError, ErrorKind } from '../../domain/errors.js';
import { pathOnly } from '../http/json-body.js';
import { setRateLimitHeaders } from '../http/invoke.js';

const PROBLEMS: Record<ErrorKind, { status: number; slug: string; title: string }> = {
  unauthenticated: { status: 401, slug: 'unauthorized', title: 'Unauthorized' },
  forbidden: { status: 403, slug: 'forbidden', title: 'Forbidden' },
  validation: { status: 400, slug: 'validation-failed', title: 'Validation failed' },
  not_found: { status: 404, slug: 'not-found', title: 'Not found' },
  conflict: { status: 409, slug: 'conflict', title: 'Conflict' },
  rate_limited: { status: 429, slug: 'rate-limited', title: 'Too many requests' },
  payload_too_large: { status: 413, slug: 'payload-too-large', title: 'Payload too large' },
  unsupported_media_type: { status: 415, slug: 'unsupported-media-type', title: 'Unsupported media type' },
  length_required: { status: 411, slug: 'length-required', title: 'Length required' },
  gone: { status: 410, slug: 'gone', title: 'Gone' },
  unprocessable: { status: 422, slug: 'unprocessable', title: 'Unprocessable' },
  unavailable: { status: 503, slug: 'service-unavailable', title: 'Service unavailable' },
  internal: { status: 500, slug: 'internal', title: 'Internal error' },
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
  const slug = err.typeSlug ?? (err.code.startsWith('idempotency_') ? 'idempotency-conflict' : p.slug);
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
    const fieldErrors: Record<string, string[]> = {};
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
