// The headers every surface derives from an outcome, written by one function each:
//  - X-RateLimit-Limit / -Remaining / -Reset for the budget that applied, and Retry-After
//    (SPEC Errors: "The 429 response carries X-RateLimit-Limit, X-RateLimit-Remaining,
//    X-RateLimit-Reset (Unix seconds) and Retry-After"; 503s carry Retry-After too);
//  - WWW-Authenticate (RFC 6750 §3): a request with no bearer credentials gets the bare challenge,
//    one whose bearer token is malformed, unknown, mismatched or revoked gets error="invalid_token",
//    and a missing scope error="insufficient_scope" naming it (MCP authorization scope challenge).
// Each surface passes its own way of setting a header (Fastify reply, MCP header map, Connect Headers).
import type { AuthCode, DomainError, RateLimitInfo } from '../../domain/errors.js';

/** Sets one response header (Fastify: reply.header; Connect: Headers.set; MCP: a map). */
export type SetHeader = (name: string, value: string | number) => void;

/** X-RateLimit-* (when a budget applied) and Retry-After (when one is given). */
export function setRateLimitHeaders(set: SetHeader, rl: RateLimitInfo | undefined, retryAfterSeconds: number | undefined = rl?.retryAfterSeconds): void {
  if (rl) {
    set('x-ratelimit-limit', rl.limit);
    set('x-ratelimit-remaining', rl.remaining);
    set('x-ratelimit-reset', rl.resetAtUnix);
  }
  if (retryAfterSeconds !== undefined) set('retry-after', retryAfterSeconds);
}

export const REALM = 'fluxdesk';
const CHALLENGE = `Bearer realm="${REALM}"`;

/**
 * The 401 codes of bearer authentication (SPEC Authentication 3). Other 401s (the HMAC signature
 * of repository push webhooks) are not answered with a bearer challenge. Total over AuthCode.
 */
const BEARER_401: Readonly<Record<AuthCode, true>> = {
  missing_or_invalid_authorization: true,
  invalid_token_format: true,
  token_not_found: true,
  token_mismatch: true,
  token_revoked: true,
};

/**
 * Did the request try bearer authentication at all? No Authorization header, an empty one or
 * another scheme (`Basic ...`) is "no credentials" (RFC 6750 §3.1: no error code then).
 */
export const bearerAttempted = (authorization: string | undefined): boolean => authorization !== undefined && /^bearer(?:\s|$)/i.test(authorization);

/** The WWW-Authenticate value for an error, or undefined when it carries none. */
export function wwwAuthenticate(err: DomainError, authorization: string | undefined): string | undefined {
  if (err.kind === 'unauthenticated') {
    if (!Object.hasOwn(BEARER_401, err.code)) return undefined;
    return bearerAttempted(authorization) ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE;
  }
  if (err.kind === 'forbidden' && err.code === 'missing_scope' && typeof err.extra.required_scope === 'string') {
    return `${CHALLENGE}, error="insufficient_scope", scope="${err.extra.required_scope.replace(/["\\]/g, '')}"`;
  }
  return undefined;
}

/** Every header an error answer carries: rate-limit figures, Retry-After, WWW-Authenticate. */
export function setErrorHeaders(set: SetHeader, err: DomainError, authorization: string | undefined): void {
  setRateLimitHeaders(set, err.rateLimit, err.retryAfterSeconds);
  const challenge = wwwAuthenticate(err, authorization);
  if (challenge !== undefined) set('www-authenticate', challenge);
}
