// Company SSO, first step (GET /auth/oidc/start): a new state, nonce and PKCE verifier, kept
// server-side for 10 minutes until the provider sends the user back (take-oidc-login.ts).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError } from '../errors.js';
import { OIDC_PENDING_MAX } from './sign-in-limits.rules.js';
import { newOidcValue, OIDC_LOGIN_TTL_MS, safeNextPath, secretHash } from './web-session.rules.js';
import { insertOidcLogin } from './web-sessions.repository.js';
import { WEB_LIMITS } from './web.limits.js';

export const BeginOidcLoginInput = z.strictObject({ next: z.string().max(WEB_LIMITS.nextInputMax).nullish() });

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
  budget: null,
  idempotent: false,
  writes: true,
  input: BeginOidcLoginInput,
  handler: async (input, ctx) => {
    const now = ctx.clock.now();
    const begun = { state: newOidcValue(), nonce: newOidcValue(), code_verifier: newOidcValue(), next: safeNextPath(input.next) };
    const kept = await insertOidcLogin(
      ctx.em,
      {
        stateHash: secretHash(begun.state),
        codeVerifier: begun.code_verifier,
        nonce: begun.nonce,
        nextPath: begun.next,
        now,
        expiresAt: new Date(now.getTime() + OIDC_LOGIN_TTL_MS),
      },
      OIDC_PENDING_MAX,
    );
    if (!kept)
      throw new DomainError('unavailable', 'too many sign-ins are in progress; try again in a minute', { code: 'sign_in_busy', retryAfterSeconds: 60 });
    return begun;
  },
});
