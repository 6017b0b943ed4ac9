// Every request the web app makes: session cookie -> the user, as an agent principal.
// The CSRF token is checked here too (constant time), for every call that is not a plain page view.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { matchesHash, secretHash, sessionLive, sessionScopes, touchDue } from './web-session.rules.js';
import { findSession, touchSession } from './web-sessions.repository.js';
import { WEB_LIMITS } from './web.limits.js';

export const ResolveWebSessionInput = z.strictObject({
  session_token: z.string().min(1).max(WEB_LIMITS.secretValueMax),
  /** The `x-csrf-token` header (Connect) or the `csrf` form field; required when check_csrf. */
  csrf_token: z.string().max(WEB_LIMITS.secretValueMax).nullish(),
  check_csrf: z.boolean().default(true),
});

export interface ResolvedWebSession {
  session_id: string;
  principal: AgentPrincipal;
}

export const sessionExpired = () =>
  new DomainError('unauthenticated', 'the web session is unknown, signed out or expired; sign in again', { code: 'session_expired' });
export const csrfMismatch = () => new DomainError('unauthenticated', 'missing or wrong x-csrf-token for this session', { code: 'csrf_mismatch' });

export const resolveWebSession = defineOperation<z.infer<typeof ResolveWebSessionInput>, ResolvedWebSession>({
  name: 'web.resolve_session',
  auth: { kind: 'none' },
  budget: null,
  idempotent: false,
  input: ResolveWebSessionInput,
  handler: async (input, ctx) => {
    const now = ctx.clock.now();
    const s = await findSession(ctx.em, secretHash(input.session_token));
    if (!s || !sessionLive(s, now) || s.userStatus !== 'active') throw sessionExpired();
    if (input.check_csrf && !(input.csrf_token && matchesHash(input.csrf_token, s.csrfHash))) throw csrfMismatch();
    if (touchDue(s.lastSeenAt, now)) await touchSession(ctx.em, s.id, now);
    return {
      session_id: s.id,
      principal: {
        type: 'agent',
        // Rate limits count per session (tok:<session id>); audit rows name the session (audit_log.token_id has no foreign key).
        tokenId: s.id,
        userId: s.userId,
        userEmail: s.userEmail,
        userName: s.userName,
        userRole: s.userRole,
        scopes: sessionScopes(s.userRole),
        viaSession: true,
      },
    };
  },
});
