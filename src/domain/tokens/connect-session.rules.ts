// Pure rules of one-click client setup: a connect session is short-lived, single-use and only
// ever stored as a hash (the session id is a bearer secret until it is exchanged).
import { randomBytes } from 'node:crypto';
import { sha256Hex } from './token-crypto.js';

export const CONNECT_SESSION_TTL_MS = 10 * 60 * 1000;
export const CONNECT_SESSION_PREFIX = 'cs_';

/** `cs_` + 43 URL-safe chars (256 random bits): unguessable, so no attempt counter is needed. */
export function newConnectSessionId(): string {
  return CONNECT_SESSION_PREFIX + randomBytes(32).toString('base64url');
}

export const connectSessionHash = (sessionId: string): string => sha256Hex(sessionId);

export const connectSessionExpiry = (now: Date): Date => new Date(now.getTime() + CONNECT_SESSION_TTL_MS);
