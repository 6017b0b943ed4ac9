// Company SSO, callback (GET /auth/oidc/callback), before the code is exchanged: the sign-in
// attempt's verifier, nonce and next path, handed out once.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError } from '../errors.js';
import { secretHash } from './web-session.rules.js';
import { consumeOidcLogin } from './web-sessions.repository.js';
import { WEB_LIMITS } from './web.limits.js';

export const TakeOidcLoginInput = z.strictObject({ state: z.string().min(1).max(WEB_LIMITS.secretValueMax) });

export const invalidOidcState = () =>
  new DomainError('validation', 'this sign-in attempt is unknown, expired or already finished; start again', {
    code: 'invalid_oidc_state',
    issues: [{ field: 'state', code: 'invalid_oidc_state', message: 'unknown, expired or already used' }],
  });

/** GET /auth/oidc/callback, before the code is exchanged: the request's verifier, nonce and next, once. */
export const takeOidcLogin = defineOperation<z.infer<typeof TakeOidcLoginInput>, { code_verifier: string; nonce: string; next: string }>({
  name: 'web.oidc_take',
  auth: { kind: 'none' },
  budget: null,
  idempotent: false,
  writes: true,
  input: TakeOidcLoginInput,
  handler: async (input, ctx) => {
    const row = await consumeOidcLogin(ctx.em, secretHash(input.state), ctx.clock.now());
    if (!row) throw invalidOidcState();
    return { code_verifier: row.codeVerifier, nonce: row.nonce, next: row.nextPath };
  },
});
