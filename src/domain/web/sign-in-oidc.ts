// Company SSO (OpenID Connect, authorization code + PKCE; issue 19). The transport talks to the
// identity provider; these operations keep the server-side half of the request and decide who may
// sign in. Users are matched by email (case-insensitive: emails are stored lower-cased); nobody is
// created on first sign-in (the spec creates users only by invite or by an operator).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError } from '../errors.js';
import { findUserByEmail } from '../users/users.repository.js';
import { assertDomainAllowed, normalizeEmail } from '../users/users.rules.js';
import { newOidcValue, OIDC_LOGIN_TTL_MS, safeNextPath, secretHash } from './web-session.rules.js';
import { consumeOidcLogin, insertOidcLogin } from './web-sessions.repository.js';
import { startSession, type StartedSession } from './start-session.js';

export const BeginOidcLoginInput = z.strictObject({ next: z.string().max(4000).nullish() });

export interface OidcLoginBegun {
  state: string;
  nonce: string;
  code_verifier: string;
  next: string;
}

/** GET /auth/oidc/start: new state, nonce and PKCE verifier, kept server-side for 10 minutes. */
export const beginOidcLogin = defineOperation<z.infer<typeof BeginOidcLoginInput>, OidcLoginBegun>({
  name: 'web.oidc_begin',
  auth: { kind: 'none' },
  rateLimited: false,
  idempotent: false,
  writes: true,
  input: BeginOidcLoginInput,
  handler: async (input, ctx) => {
    const now = ctx.clock.now();
    const begun = { state: newOidcValue(), nonce: newOidcValue(), code_verifier: newOidcValue(), next: safeNextPath(input.next) };
    await insertOidcLogin(ctx.em, {
      stateHash: secretHash(begun.state),
      codeVerifier: begun.code_verifier,
      nonce: begun.nonce,
      nextPath: begun.next,
      now,
      expiresAt: new Date(now.getTime() + OIDC_LOGIN_TTL_MS),
    });
    return begun;
  },
});

export const TakeOidcLoginInput = z.strictObject({ state: z.string().min(1).max(200) });

export const invalidOidcState = () =>
  new DomainError('validation', 'this sign-in attempt is unknown, expired or already finished; start again', {
    code: 'invalid_oidc_state',
    issues: [{ field: 'state', code: 'invalid_oidc_state', message: 'unknown, expired or already used' }],
  });

/** GET /auth/oidc/callback, before the code is exchanged: the request's verifier, nonce and next, once. */
export const takeOidcLogin = defineOperation<z.infer<typeof TakeOidcLoginInput>, { code_verifier: string; nonce: string; next: string }>({
  name: 'web.oidc_take',
  auth: { kind: 'none' },
  rateLimited: false,
  idempotent: false,
  writes: true,
  input: TakeOidcLoginInput,
  handler: async (input, ctx) => {
    const row = await consumeOidcLogin(ctx.em, secretHash(input.state), ctx.clock.now());
    if (!row) throw invalidOidcState();
    return { code_verifier: row.codeVerifier, nonce: row.nonce, next: row.nextPath };
  },
});

export const SignInOidcInput = z.strictObject({
  email: z.string().max(320).nullish(),
  email_verified: z.boolean().nullish(),
  subject: z.string().max(255),
  user_agent: z.string().max(2000).nullish(),
  previous_session_token: z.string().max(200).nullish(),
});

/**
 * After the transport verified the ID token (issuer, audience, nonce, signature): the claims
 * decide. Trusted input, so operator-only (`system`): no other surface can reach it.
 */
export const signInOidc = defineOperation<z.infer<typeof SignInOidcInput>, StartedSession>({
  name: 'web.sign_in_oidc',
  auth: { kind: 'system' },
  rateLimited: false,
  idempotent: false,
  writes: true,
  input: SignInOidcInput,
  handler: async (input, ctx) => {
    if (!input.email || !z.email().safeParse(input.email).success) {
      throw new DomainError('forbidden', 'the identity provider sent no usable email address', { code: 'email_missing' });
    }
    if (input.email_verified === false) {
      throw new DomainError('forbidden', 'the identity provider says this email address is not verified', { code: 'email_not_verified' });
    }
    const email = normalizeEmail(input.email);
    assertDomainAllowed(email, ctx.config.allowedEmailDomains);
    const user = await findUserByEmail(ctx.em, email);
    if (!user) throw new DomainError('forbidden', `there is no fluxdesk account for ${email}`, { code: 'no_account', extra: { email } });
    if (user.status !== 'active') throw new DomainError('forbidden', `the account of ${email} is ${user.status}`, { code: 'user_inactive', extra: { email } });
    return startSession(ctx, user, {
      signedInBy: 'oidc',
      userAgent: input.user_agent,
      previousSessionToken: input.previous_session_token,
      detail: { subject: input.subject },
    });
  },
});
