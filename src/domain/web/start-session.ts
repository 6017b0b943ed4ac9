// The one way a web session begins (login link or OIDC): a new session id and new secrets on
// every sign-in (rotation), the browser's previous session ended, an audit row. In the caller's
// transaction.
import type { OpContext } from '../context.js';
import { recordAudit } from '../audit/audit.js';
import { CSRF_PREFIX, newSecret, secretHash, SESSION_ABSOLUTE_MS, SESSION_PREFIX } from './web-session.rules.js';
import { insertSession, revokeSessionByHash } from './web-sessions.repository.js';
import { WEB_LIMITS } from './web.limits.js';

export const WEB_AUDIT = {
  signedIn: 'web.session.created',
  signInRefused: 'web.sign_in.refused',
  signedOut: 'web.session.ended',
  signedOutEverywhere: 'web.session.ended_all',
  loginLinkCreated: 'web.login_link.created',
} as const;

/** What the transport puts in the cookies; the values exist nowhere else (only their hashes are stored). */
export interface StartedSession {
  session_id: string;
  user_id: string;
  session_token: string;
  csrf_token: string;
  expires_at: string;
}

export async function startSession(
  ctx: OpContext,
  user: { id: string },
  how: { signedInBy: 'login_link' | 'oidc'; userAgent?: string | null; previousSessionToken?: string | null; detail?: Record<string, unknown> },
): Promise<StartedSession> {
  const now = ctx.clock.now();
  // Rotation: whatever session this browser held before signing in again ends now.
  if (how.previousSessionToken) await revokeSessionByHash(ctx.em, secretHash(how.previousSessionToken), now);
  const sessionToken = newSecret(SESSION_PREFIX);
  const csrfToken = newSecret(CSRF_PREFIX);
  const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
  const id = await insertSession(ctx.em, {
    userId: user.id,
    tokenHash: secretHash(sessionToken),
    csrfHash: secretHash(csrfToken),
    now,
    expiresAt,
    userAgent: how.userAgent ? how.userAgent.slice(0, WEB_LIMITS.userAgentKeptMax) : null,
    signedInBy: how.signedInBy,
  });
  recordAudit(ctx.em, ctx, {
    action: WEB_AUDIT.signedIn,
    actorUserId: user.id,
    tokenId: id,
    targetType: 'web_session',
    targetId: id,
    summary: { by: how.signedInBy, ...how.detail },
  });
  return { session_id: id, user_id: user.id, session_token: sessionToken, csrf_token: csrfToken, expires_at: expiresAt.toISOString() };
}
