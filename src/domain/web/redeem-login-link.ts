// POST /auth/link/<token>: the link is the credential, good for exactly one session. Unknown,
// used, expired and "user no longer active" all get the same answer (nothing about which it was).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError } from '../errors.js';
import { User } from '../users/users.entity.js';
import { secretHash } from './web-session.rules.js';
import { consumeLoginLink } from './web-sessions.repository.js';
import { startSession, type StartedSession } from './start-session.js';
import { WEB_LIMITS } from './web.limits.js';

export const RedeemLoginLinkInput = z.strictObject({
  // Any string: a malformed token is just another unknown link (same answer).
  token: z.string().min(1).max(WEB_LIMITS.secretValueMax),
  user_agent: z.string().max(WEB_LIMITS.userAgentInputMax).nullish(),
  previous_session_token: z.string().max(WEB_LIMITS.secretValueMax).nullish(),
});

export const invalidLoginLink = () =>
  new DomainError('validation', 'this sign-in link is unknown, expired or already used; ask for a new one', {
    code: 'invalid_login_link',
    issues: [{ field: 'token', code: 'invalid_login_link', message: 'the sign-in link is unknown, expired or already used' }],
  });

export const redeemLoginLink = defineOperation<z.infer<typeof RedeemLoginLinkInput>, StartedSession>({
  name: 'web.redeem_login_link',
  auth: { kind: 'none' },
  budget: null,
  idempotent: false,
  writes: true,
  input: RedeemLoginLinkInput,
  handler: async (input, ctx) => {
    const link = await consumeLoginLink(ctx.em, secretHash(input.token), ctx.clock.now());
    if (!link) throw invalidLoginLink();
    // Offboarded since the link was made: same answer (the transaction rolls the use back).
    const user = await ctx.em.findOne(User, { id: link.userId });
    if (user?.status !== 'active') throw invalidLoginLink();
    return startSession(ctx, user, {
      signedInBy: 'login_link',
      userAgent: input.user_agent,
      previousSessionToken: input.previous_session_token,
      detail: { login_link_id: link.id },
    });
  },
});
