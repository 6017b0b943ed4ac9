// The one status table and the one header writer of the HTTP edge (src/transports/http/status.ts,
// response-headers.ts): total over ErrorKind, the same status on every HTTP surface, RFC 6750
// challenges, and the 429 headers of SPEC Errors ("X-RateLimit-Limit, X-RateLimit-Remaining,
// X-RateLimit-Reset (Unix seconds) and Retry-After").
import { describe, expect, it } from 'vitest';
import { DomainError, ERROR_KINDS, errorTypeSlug, type AuthCode, type ErrorKind } from '../../src/domain/errors.js';
import { HTTP_STATUS, httpStatus, problemTitle, SLUG_TITLES } from '../../src/transports/http/status.js';
import { bearerAttempted, setErrorHeaders, setRateLimitHeaders, wwwAuthenticate } from '../../src/transports/http/response-headers.js';
import { problemBody } from '../../src/transports/rest-v1/problem.js';
import { classifyToolError, errorHeaders, wholeRequestError } from '../../src/transports/mcp/errors.js';

/** SPEC Errors "Status codes" and "Agent protocol errors", per kind. */
const SPEC_STATUS: Record<ErrorKind, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  length_required: 411,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

const collect = (fill: (set: (k: string, v: string | number) => void) => void): Record<string, string | number> => {
  const h: Record<string, string | number> = {};
  fill((k, v) => {
    h[k] = v;
  });
  return h;
};

describe('status table', () => {
  it('is total over ErrorKind and has exactly the kinds there are', () => {
    expect(Object.keys(HTTP_STATUS).sort()).toEqual([...ERROR_KINDS].sort());
    for (const kind of ERROR_KINDS) {
      expect(HTTP_STATUS[kind].status, kind).toBe(SPEC_STATUS[kind]);
      expect(HTTP_STATUS[kind].title.length, kind).toBeGreaterThan(0);
    }
  });

  it('every status is a client or server error, and no two kinds share a title', () => {
    const titles = new Set<string>();
    for (const kind of ERROR_KINDS) {
      const { status, title } = HTTP_STATUS[kind];
      expect(status >= 400 && status <= 599).toBe(true);
      expect(titles.has(title), title).toBe(false);
      titles.add(title);
    }
  });

  it('the REST problem, the legacy status and an MCP HTTP-level error agree for every kind', () => {
    for (const kind of ERROR_KINDS) {
      const err = new DomainError(kind, 'x', {
        code: kind === 'forbidden' ? 'missing_scope' : kind,
        extra: kind === 'forbidden' ? { required_scope: 'read:inbox' } : {},
      });
      expect(problemBody(err, 'https://e', '/p', 'r').status, kind).toBe(httpStatus(err));
      const mcp = classifyToolError(err, 'Bearer x');
      // An error answered at the protocol level has the table's status (a lone request's HTTP status).
      if (mcp.kind === 'rpc') expect(mcp.error.status, kind).toBe(httpStatus(err));
    }
    // The one MCP exception the agent protocol makes: an input-schema error is an ordinary -32602 answer.
    const schema = classifyToolError(new DomainError('validation', 'x', { code: 'schema_invalid' }), 'Bearer x');
    expect(schema).toMatchObject({ kind: 'rpc', error: { code: -32602, status: 200 } });
  });

  it('slug titles: the specific slugs of SPEC Errors have their own title, every other slug its kind title', () => {
    expect(Object.keys(SLUG_TITLES).sort()).toEqual(['domain-not-allowed', 'inbound-no-approval', 'user-already-exists', 'user-not-found']);
    const err = new DomainError('unprocessable', 'x', { typeSlug: 'user-not-found' });
    expect(problemTitle(err, errorTypeSlug(err))).toBe('User not found');
    expect(problemBody(err, 'https://e', '/p', 'r')).toMatchObject({ type: 'https://e/user-not-found', title: 'User not found', status: 422 });
    const plain = new DomainError('not_found', 'x');
    expect(problemTitle(plain, errorTypeSlug(plain))).toBe('Not found');
    // A slug that happens to name an Object.prototype member is not a title.
    expect(problemTitle(plain, 'constructor')).toBe('Not found');
  });
});

describe('rate-limit headers', () => {
  const rl = { limit: 60, remaining: 0, resetAtUnix: 1_790_000_000 };

  it('X-RateLimit-* for the budget, Retry-After when given', () => {
    expect(collect((set) => setRateLimitHeaders(set, rl))).toEqual({ 'x-ratelimit-limit': 60, 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': 1_790_000_000 });
    expect(collect((set) => setRateLimitHeaders(set, { ...rl, retryAfterSeconds: 7 }))).toEqual({
      'x-ratelimit-limit': 60,
      'x-ratelimit-remaining': 0,
      'x-ratelimit-reset': 1_790_000_000,
      'retry-after': 7,
    });
    // A 503 without a budget carries only Retry-After.
    expect(collect((set) => setRateLimitHeaders(set, undefined, 1))).toEqual({ 'retry-after': 1 });
    expect(collect((set) => setRateLimitHeaders(set, undefined))).toEqual({});
  });

  it('a 429 carries the same four headers on REST / legacy (setErrorHeaders) and MCP (errorHeaders)', () => {
    const err = new DomainError('rate_limited', 'slow down', { code: 'rate_limited', rateLimit: { ...rl, retryAfterSeconds: 12 } });
    const want = { 'x-ratelimit-limit': 60, 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': 1_790_000_000, 'retry-after': 12 };
    expect(collect((set) => setErrorHeaders(set, err, 'Bearer x'))).toEqual(want);
    expect(errorHeaders(err, 'Bearer x')).toEqual(want);
    expect(wholeRequestError(err, 'Bearer x')).toMatchObject({ status: 429, headers: want });
  });
});

describe('WWW-Authenticate (RFC 6750 §3)', () => {
  const auth = (code: AuthCode | string) => new DomainError('unauthenticated', 'x', { code });

  it('no bearer credentials: the bare challenge, no error code (§3.1)', () => {
    for (const authorization of [undefined, '', 'Basic dXNlcjpwdw==', 'Token abc', 'Bearerx abc']) {
      expect(bearerAttempted(authorization), String(authorization)).toBe(false);
      expect(wwwAuthenticate(auth('missing_or_invalid_authorization'), authorization)).toBe('Bearer realm="fluxdesk"');
    }
  });

  it('a malformed, unknown, mismatched or revoked bearer token: error="invalid_token"', () => {
    const cases: Array<[AuthCode, string]> = [
      ['missing_or_invalid_authorization', 'Bearer  two-spaces'],
      ['missing_or_invalid_authorization', 'bearer lower-case-scheme'],
      ['missing_or_invalid_authorization', 'Bearer'],
      ['invalid_token_format', 'Bearer garbage'],
      ['token_not_found', 'Bearer svc-in-pers-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
      ['token_mismatch', 'Bearer sk-svc-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
      ['token_revoked', 'Bearer svc-in-pers-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
    ];
    for (const [code, authorization] of cases) {
      expect(wwwAuthenticate(auth(code), authorization), `${code} ${authorization}`).toBe('Bearer realm="fluxdesk", error="invalid_token"');
    }
  });

  it('a missing scope: error="insufficient_scope" naming it; other errors carry no challenge', () => {
    const scope = new DomainError('forbidden', 'x', { code: 'missing_scope', extra: { required_scope: 'write:inbox' } });
    expect(wwwAuthenticate(scope, 'Bearer x')).toBe('Bearer realm="fluxdesk", error="insufficient_scope", scope="write:inbox"');
    expect(wwwAuthenticate(new DomainError('forbidden', 'x', { code: 'not_sender' }), 'Bearer x')).toBeUndefined();
    for (const kind of ERROR_KINDS.filter((k) => k !== 'unauthenticated' && k !== 'forbidden')) {
      expect(wwwAuthenticate(new DomainError(kind, 'x'), 'Bearer x'), kind).toBeUndefined();
    }
  });

  it('a 401 that is not bearer authentication (a repository push signature) gets no bearer challenge', () => {
    expect(wwwAuthenticate(auth('signature_mismatch'), undefined)).toBeUndefined();
    expect(wwwAuthenticate(auth('signature_missing'), undefined)).toBeUndefined();
  });

  it('MCP and REST / legacy write the same challenge', () => {
    for (const authorization of [undefined, 'Bearer garbage']) {
      const err = auth(authorization === undefined ? 'missing_or_invalid_authorization' : 'invalid_token_format');
      expect(errorHeaders(err, authorization)['www-authenticate']).toBe(collect((set) => setErrorHeaders(set, err, authorization))['www-authenticate']);
    }
  });
});
