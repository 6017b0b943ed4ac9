// POST /auth/logout and /auth/logout-everywhere (form field `csrf`): this session, or every
// session of its user. An already-ended session signs out quietly (nothing left to end).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { recordAudit } from '../audit/audit.js';
import { csrfMismatch } from './resolve-web-session.js';
import { matchesHash, secretHash } from './web-session.rules.js';
import { findSession, revokeSessionByHash, revokeUserSessions } from './web-sessions.repository.js';
import { WEB_AUDIT } from './start-session.js';
import { announceAccessChanged } from '../inbox/announce-notification.js';
import { WEB_LIMITS } from './web.limits.js';

export const SignOutInput = z.strictObject({
  session_token: z.string().min(1).max(WEB_LIMITS.secretValueMax),
  csrf_token: z.string().max(WEB_LIMITS.secretValueMax).nullish(),
  everywhere: z.boolean().default(false),
});

export interface SignedOut {
  sessions_ended: number;
}

export const signOut = defineOperation<z.infer<typeof SignOutInput>, SignedOut>({
  name: 'web.sign_out',
  auth: { kind: 'none' },
  budget: null,
  idempotent: false,
  writes: true,
  input: SignOutInput,
  handler: async (input, ctx) => {
    const now = ctx.clock.now();
    const hash = secretHash(input.session_token);
    const s = await findSession(ctx.em, hash);
    if (!s || s.revokedAt !== null) return { sessions_ended: 0 };
    if (!(input.csrf_token && matchesHash(input.csrf_token, s.csrfHash))) throw csrfMismatch();
    const ended = input.everywhere ? await revokeUserSessions(ctx.em, s.userId, now) : (await revokeSessionByHash(ctx.em, hash, now)) ? 1 : 0;
    recordAudit(ctx.em, ctx, {
      action: input.everywhere ? WEB_AUDIT.signedOutEverywhere : WEB_AUDIT.signedOut,
      actorUserId: s.userId,
      tokenId: s.id,
      targetType: 'web_session',
      targetId: s.id,
      summary: { sessions_ended: ended },
    });
    // The user's open live inboxes check their session again now (a signed-out one ends).
    if (ended > 0) announceAccessChanged(ctx, s.userId);
    return { sessions_ended: ended };
  },
});
