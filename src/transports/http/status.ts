// The one table ErrorKind -> HTTP status and default title, for every HTTP surface (REST problems,
// legacy bodies, MCP HTTP-level errors, the Fastify root handler). SPEC Errors "Status codes".
// Total over ErrorKind: a new kind fails to compile until it is placed here.
import type { DomainError, ErrorKind } from '../../domain/errors.js';

export interface HttpStatusRow {
  status: number;
  /** The problem `title` when the error's type slug has no title of its own (SLUG_TITLES). */
  title: string;
}

export const HTTP_STATUS: Readonly<Record<ErrorKind, HttpStatusRow>> = Object.freeze({
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
});

/**
 * Problem titles of the type slugs that name a case more precisely than their kind (SPEC Errors
 * "Known type slugs"): the `title` of `{errors_base}/<slug>`, and what an `/errors/<slug>` page shows.
 */
export const SLUG_TITLES: Readonly<Record<string, string>> = Object.freeze({
  'user-not-found': 'User not found',
  'domain-not-allowed': 'Email domain not allowed',
  'user-already-exists': 'User already exists',
  'inbound-no-approval': 'Employee has no approved request',
});

export const httpStatus = (err: DomainError): number => HTTP_STATUS[err.kind].status;

/** The problem title for an error whose type slug is `slug`. */
export const problemTitle = (err: DomainError, slug: string): string => (Object.hasOwn(SLUG_TITLES, slug) ? SLUG_TITLES[slug]! : HTTP_STATUS[err.kind].title);
