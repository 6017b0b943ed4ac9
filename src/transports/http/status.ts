// The one table ErrorKind -> HTTP status and default title, for every HTTP surface (REST problems,
// legacy bodies, MCP HTTP-level errors, the Fastify root handler). SPEC Errors "Status codes".
// Total over ErrorKind: a new kind fails to compile until it is placed here.
import { DomainError, ERROR_KINDS, type ErrorKind, errorTypeSlug } from '../../domain/errors.js';

export interface HttpStatusRow {
  status: number;
  /** The problem `title` when the error's type slug has no title of its own (SLUG_TITLES). */
  title: string;
}

/** What an `/errors/<slug>` page says under its title: what the problem means and what to do. */
export interface ProblemExplanation {
  means: string;
  todo: string;
}

export const HTTP_STATUS: Readonly<Record<ErrorKind, HttpStatusRow & ProblemExplanation>> = Object.freeze({
  unauthenticated: {
    status: 401,
    title: 'Unauthorized',
    means:
      'The request carried no credentials, or credentials the service does not accept: a missing, malformed, disabled, revoked or expired token, or an expired sign-in session.',
    todo: 'Send a valid token as `Authorization: Bearer <token>` (never in the query string), or sign in again. A disabled token can be re-enabled by its owner; a revoked or expired one must be replaced.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    means: 'The caller is known but may not do this: an admin-only operation, a scope the token lacks, a project or namespace the caller does not belong to.',
    todo: 'Use a token or an account that holds the needed role or scope, or ask an administrator for access. Repeating the request unchanged will not help.',
  },
  validation: {
    status: 400,
    title: 'Validation failed',
    means:
      'The request does not match its schema: a missing or unknown field, a value of the wrong type or outside its range, a bad enum value, an immutable field sent, too many items.',
    todo: 'Read `errors` (or `fieldErrors`) in the response body: every issue is listed at once with its field. Fix them all and send the request again.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    means: "The named resource does not exist, or is not visible to the caller (another user's items answer exactly like unknown ones).",
    todo: 'Check the identifier or path and the account you are using. Archived rows are not returned by single fetches.',
  },
  conflict: {
    status: 409,
    title: 'Conflict',
    means: 'The request conflicts with the current state: a slug already taken, a hard delete blocked by rows that still point at the resource.',
    todo: 'Read the response body (`blockers` lists what blocks a delete), resolve the conflict, then retry.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    means: 'A rate limit, a daily quota or a circuit breaker refused the request.',
    todo: 'Wait the number of seconds in `Retry-After` before retrying; `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` show the budget. Spread requests out or ask for a higher daily limit.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    means: 'The request body is larger than the service accepts (256 KB).',
    todo: 'Send a smaller body: shorten the markdown, or split a bulk request into several.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    means: 'The body was sent with a content type the endpoint does not read.',
    todo: 'Send JSON with `Content-Type: application/json` (charset UTF-8).',
  },
  length_required: {
    status: 411,
    title: 'Length required',
    means: 'The endpoint needs to know the body size up front, and the request had no `Content-Length`.',
    todo: 'Send the body with a `Content-Length` header instead of a chunked stream.',
  },
  gone: {
    status: 410,
    title: 'Gone',
    means: 'The endpoint or version existed once and has been retired (for example the version 1 inbound path).',
    todo: 'Move to the current API version; the REST v1 reference at /api/v1/docs lists the replacements.',
  },
  unprocessable: {
    status: 422,
    title: 'Unprocessable',
    means: 'The request is well-formed, but its content cannot be acted on as it stands.',
    todo: 'Read `detail` in the response body for the reason, correct the content, then send it again.',
  },
  unavailable: {
    status: 503,
    title: 'Service unavailable',
    means: 'The service, or a part it depends on, is temporarily unavailable: starting, draining for a restart, or a dependency is down.',
    todo: 'Retry after a short wait (honour `Retry-After` when present). If it lasts, tell the operators of this fluxdesk.',
  },
  internal: {
    status: 500,
    title: 'Internal error',
    means: 'Something went wrong inside the service; the request itself may be fine.',
    todo: 'Retry later. If it keeps failing, report the `requestId` from the response body to the operators so they can find it in the logs.',
  },
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

/**
 * The `/errors/<slug>` explanation of every type slug that has its own case (SLUG_TITLES and the
 * other slugs the service emits beyond the per-kind ones): the kind it comes with, what it means,
 * what to do. The title stays the one problemTitle gives, so the page and the problems agree.
 */
export const SLUG_EXPLANATIONS: Readonly<Record<string, ProblemExplanation & { kind: ErrorKind; code?: string }>> = Object.freeze({
  'user-not-found': {
    kind: 'unprocessable',
    means: "No fluxdesk user has the email address given (the body's `email`): an admin lookup by email, or an event addressed to a person, named nobody.",
    todo: 'Check the address for typos. A person who never signed in has no user yet: an administrator can invite them first.',
  },
  'domain-not-allowed': {
    kind: 'unprocessable',
    means: 'The email address is outside the company domains this fluxdesk accepts (the body names the `email` and its `domain`).',
    todo: "Use the person's company address. If the domain should be accepted, an operator adds it to ALLOWED_EMAIL_DOMAINS.",
  },
  'user-already-exists': {
    kind: 'unprocessable',
    means: 'A user with this email already exists; the body carries its `user_id`.',
    todo: 'Nothing to create: use the existing user (a caller may treat this answer as an idempotent success).',
  },
  'inbound-no-approval': {
    kind: 'unprocessable',
    means:
      'The target employee (`target_email`) has no approved request for the catalog item (`catalog_slug`) the event is about, so it cannot be delivered for it.',
    todo: 'Have the employee request the catalog item and get it approved, then publish again.',
  },
  'username-contains-at': {
    kind: 'unprocessable',
    means: 'A username search was given a full email address; it takes the local part only (before the `@`).',
    todo: 'Search with the part before the `@`, or look the user up by email instead.',
  },
  'idempotency-conflict': {
    kind: 'conflict',
    code: 'idempotency_key_reused',
    means: 'The `Idempotency-Key` was used before with a different request body, or its first request is still being processed.',
    todo: 'Use a new key for a different request; to repeat the same request, send exactly the same body. If the first is still in progress, wait and retry.',
  },
});

export interface ProblemPage extends ProblemExplanation {
  slug: string;
  title: string;
  status: number;
}

/** Every problem type the service emits (`{errors_base}/<slug>`), as its `/errors/<slug>` page shows it. */
export function problemPages(): ProblemPage[] {
  const pages: ProblemPage[] = [];
  for (const kind of ERROR_KINDS) {
    const err = new DomainError(kind, kind);
    const slug = errorTypeSlug(err);
    const row = HTTP_STATUS[kind];
    pages.push({ slug, title: problemTitle(err, slug), status: row.status, means: row.means, todo: row.todo });
  }
  for (const [slug, x] of Object.entries(SLUG_EXPLANATIONS)) {
    const err = new DomainError(x.kind, x.kind, { code: x.code, typeSlug: x.code ? undefined : slug });
    pages.push({ slug: errorTypeSlug(err), title: problemTitle(err, slug), status: HTTP_STATUS[x.kind].status, means: x.means, todo: x.todo });
  }
  return pages;
}

export const httpStatus = (err: DomainError): number => HTTP_STATUS[err.kind].status;

/** The problem title for an error whose type slug is `slug`. */
export const problemTitle = (err: DomainError, slug: string): string => (Object.hasOwn(SLUG_TITLES, slug) ? SLUG_TITLES[slug]! : HTTP_STATUS[err.kind].title);
