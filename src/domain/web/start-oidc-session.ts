// The write half of an SSO sign-in (sign-in-oidc.ts): the identity bound to the account (or its
// sign-in recorded) and the web session started, in one transaction.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError } from '../errors.js';
import { bindIdentity } from './oidc-identities.repository.js';
import { startSession, type StartedSession } from './start-session.js';

const OidcSessionInput = z.strictObject({
  issuer: z.string(),
  subject: z.string(),
  user_id: z.uuid(),
  email: z.string(),
  user_agent: z.string().nullish(),
  previous_session_token: z.string().nullish(),
});

/** The identity bound (or its sign-in recorded) and the session started, in one transaction. */
export const oidcSession = defineOperation<z.infer<typeof OidcSessionInput>, StartedSession>({
  name: 'web.oidc_session',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: OidcSessionInput,
  handler: async (input, ctx) => {
    const now = ctx.clock.now();
    const bound = await bindIdentity(ctx.em, { issuer: input.issuer, subject: input.subject, userId: input.user_id, email: input.email, now });
    if (!bound) throw identityConflict(input.email);
    return startSession(
      ctx,
      { id: input.user_id },
      {
        signedInBy: 'oidc',
        userAgent: input.user_agent,
        previousSessionToken: input.previous_session_token,
        detail: { issuer: input.issuer, subject: input.subject },
      },
    );
  },
});

export const identityConflict = (email: string) =>
  new DomainError('forbidden', `the account of ${email} is bound to another identity at this provider`, { code: 'identity_conflict', extra: { email } });
