// Pure rules of web sign-in (docs/web-sign-in.md): lifetimes, secret values, cookie
// names, the `next` redirect rule and the scopes a session carries.
import { randomBytes } from 'node:crypto';
import { hashesEqual, sha256Hex } from '../tokens/token-crypto.js';
import { WEB_LIMITS } from './web.limits.js';

/** A session ends after 12 hours without a request (idle) ... */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** ... and 7 days after sign-in whatever happens (absolute; a new sign-in makes a new session). */
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
/** last_seen_at is written at most this often per session (one UPDATE a minute, not one per call). */
export const SESSION_TOUCH_MS = 60 * 1000;
/** `fluxdesk login-link`: valid 10 minutes, one use. */
export const LOGIN_LINK_TTL_MS = 10 * 60 * 1000;
/** An OIDC authorization request must come back within 10 minutes. */
export const OIDC_LOGIN_TTL_MS = 10 * 60 * 1000;

export const SESSION_PREFIX = 'fds_';
export const CSRF_PREFIX = 'fdc_';
export const LOGIN_LINK_PREFIX = 'fdl_';

/** prefix + 43 URL-safe characters (256 random bits): unguessable, stored only as SHA-256. */
export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** A random value for OIDC (state, nonce, PKCE verifier: 43 characters of the RFC 7636 alphabet). */
export function newOidcValue(): string {
  return randomBytes(32).toString('base64url');
}

export const secretHash = (value: string): string => sha256Hex(value);

/** Constant-time: does `presented` hash to `storedHash`? */
export function matchesHash(presented: string, storedHash: string): boolean {
  return hashesEqual(sha256Hex(presented), storedHash);
}

export interface SessionTimes {
  lastSeenAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

export function sessionLive(s: SessionTimes, now: Date): boolean {
  return s.revokedAt === null && now.getTime() < s.expiresAt.getTime() && now.getTime() - s.lastSeenAt.getTime() < SESSION_IDLE_MS;
}

export const touchDue = (lastSeenAt: Date, now: Date): boolean => now.getTime() - lastSeenAt.getTime() >= SESSION_TOUCH_MS;

export interface CookieNames {
  session: string;
  csrf: string;
  /** OIDC: holds the authorization request's `state` between /auth/oidc/start and the callback. */
  oidc: string;
  secure: boolean;
}

/**
 * The agreed contract: `fluxdesk_session` (HttpOnly) and `fluxdesk_csrf` (readable by the app);
 * under an https PUBLIC_BASE_URL they are `__Host-fluxdesk_session` and `__Host-fluxdesk_csrf` and
 * every cookie is Secure (the `__Host-` prefix makes the browser refuse it without Secure, with a
 * Domain, or with a Path other than `/`, so a sibling subdomain cannot plant or shadow either).
 * The app reads the `__Host-` CSRF name first, then the plain one.
 */
export function cookieNames(publicBaseUrl: string): CookieNames {
  const secure = publicBaseUrl.toLowerCase().startsWith('https://');
  return {
    session: secure ? '__Host-fluxdesk_session' : 'fluxdesk_session',
    csrf: secure ? '__Host-fluxdesk_csrf' : 'fluxdesk_csrf',
    oidc: secure ? '__Host-fluxdesk_oidc' : 'fluxdesk_oidc',
    secure,
  };
}

/** The longest `next` kept (percent-encoded); a longer one becomes `/`. */
export const NEXT_PATH_MAX = WEB_LIMITS.nextPathMax;

/**
 * Where to go after sign-in: a same-origin path only (one leading `/`, not `//` or `/\`, which
 * browsers read as another host; no control characters), else `/`. Characters outside printable
 * ASCII are percent-encoded, so the path is always a valid Location header (an unpaired surrogate,
 * which has no encoding, gives `/`).
 */
export function safeNextPath(next: unknown): string {
  if (typeof next !== 'string' || next.length === 0 || next.length > NEXT_PATH_MAX) return '/';
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/';
  if (/[\u0000-\u001f\u007f]/.test(next)) return '/';
  let encoded: string;
  try {
    encoded = next.replace(/[^\x21-\x7e]+/g, (run) => encodeURIComponent(run));
  } catch {
    return '/';
  }
  return encoded.length > NEXT_PATH_MAX ? '/' : encoded;
}

const SESSION_TOKEN_SHAPE = /^fds_[A-Za-z0-9_-]{43}$/;
const CSRF_TOKEN_SHAPE = /^fdc_[A-Za-z0-9_-]{43}$/;

/** A session cookie's value when it can be one of ours; anything else is no session (never an error). */
export const sessionTokenOrNull = (v: unknown): string | null => (typeof v === 'string' && SESSION_TOKEN_SHAPE.test(v) ? v : null);
/** A CSRF token (form field) when it can be one of ours; anything else is no token. */
export const csrfTokenOrNull = (v: unknown): string | null => (typeof v === 'string' && CSRF_TOKEN_SHAPE.test(v) ? v : null);

/**
 * A session may do whatever the user's own agent token may: every scope (`*`), the same as an
 * agent token created without a scope list, which any role may hold (SPEC "Agent token scopes").
 * What a role may not do is refused by the operations themselves (admin-only ones check the role).
 */
export function sessionScopes(_role: string): string[] {
  return ['*'];
}
