// Company SSO (OpenID Connect, authorization code + PKCE). The transport talks to the identity
// provider; these operations keep the server-side half of the request and decide who may sign in
// (docs/web-sign-in.md "Who signs in"). A person is their identity at the provider, the issuer and
// its `sub`: bound to their account at their first SSO sign-in, matched on every later one. Only
// that first sign-in matches by email, and only a verified one. Nobody is created on sign-in (users
// come from an invite or an operator).
import { z } from 'zod';
import { insertAudit } from '../audit/audit.js';
import { defineOperation, type OpContext } from '../context.js';
import { DomainError } from '../errors.js';
import { findUserByEmail } from '../users/users.repository.js';
import { assertDomainAllowed, normalizeEmail } from '../users/users.rules.js';
import { bindIdentity, findBoundUser, findSubjectOfUser } from './oidc-identities.repository.js';
import { OIDC_PENDING_MAX } from './sign-in-limits.rules.js';
import { newOidcValue, OIDC_LOGIN_TTL_MS, safeNextPath, secretHash } from './web-session.rules.js';
import { consumeOidcLogin, insertOidcLogin } from './web-sessions.repository.js';
import { startSession, WEB_AUDIT, type StartedSession } from './start-session.js';
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

export const SignInOidcInput = z.strictObject({
  /** The ID token's `iss`, as the transport verified it. */
  issuer: z.string().min(1).max(WEB_LIMITS.oidcIssuerMax),
  subject: z.string().min(1).max(WEB_LIMITS.oidcSubjectMax),
  email: z.string().max(WEB_LIMITS.oidcEmailMax).nullish(),
  email_verified: z.boolean().nullish(),
  /** OIDC_TRUST_EMAIL: the provider never sends `email_verified`, so its absence is not a refusal. */
  trust_unverified_email: z.boolean().default(false),
  user_agent: z.string().max(WEB_LIMITS.userAgentInputMax).nullish(),
  previous_session_token: z.string().max(WEB_LIMITS.secretValueMax).nullish(),
});
type SignInOidcInput = z.infer<typeof SignInOidcInput>;

/** Why an SSO sign-in is refused (the refusal page words each one; every one is audited). */
export type OidcRefusal = 'email_missing' | 'email_not_verified' | 'domain_not_allowed' | 'no_account' | 'user_inactive' | 'identity_conflict';

/**
 * After the transport verified the ID token (issuer, audience, nonce, signature): the claims
 * decide. Trusted input, so operator-only (`system`): no other surface can reach it. It writes
 * nothing itself: a refusal is audited by one statement of its own (it must outlive the refusal),
 * a sign-in is one transaction (oidcSession).
 */
export const signInOidc = defineOperation<SignInOidcInput, StartedSession>({
  name: 'web.sign_in_oidc',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  input: SignInOidcInput,
  handler: async (input, ctx) => {
    const refuse = (code: OidcRefusal, message: string, userId: string | null, extra: Record<string, unknown> = {}) =>
      refuseSignIn(ctx, input, code, message, userId, extra);

    // Bound before: the binding decides, whatever email the provider says today.
    const bound = await findBoundUser(ctx.em, input.issuer, input.subject);
    if (bound) {
      if (bound.status !== 'active') return refuse('user_inactive', `the account of ${bound.email} is ${bound.status}`, bound.userId, { email: bound.email });
      return signInAs(ctx, input, bound.userId, bound.email);
    }

    // First SSO sign-in of this identity: matched by email, which must be verified.
    if (!input.email || !z.email().safeParse(input.email).success) return refuse('email_missing', 'the identity provider sent no usable email address', null);
    const email = normalizeEmail(input.email);
    const verified = input.email_verified === true || (input.email_verified == null && input.trust_unverified_email);
    if (!verified) return refuse('email_not_verified', 'the identity provider does not say this email address is verified', null, { email });
    try {
      assertDomainAllowed(email, ctx.config.allowedEmailDomains);
    } catch (err) {
      if (err instanceof DomainError) return refuse('domain_not_allowed', err.message, null, err.extra);
      throw err;
    }
    const user = await findUserByEmail(ctx.em, email);
    if (!user) return refuse('no_account', `there is no fluxdesk account for ${email}`, null, { email });
    if (user.status !== 'active') return refuse('user_inactive', `the account of ${email} is ${user.status}`, user.id, { email });
    // The account already belongs to another identity of this provider: an email changed at the
    // provider (or a second account there) must not take it over.
    if ((await findSubjectOfUser(ctx.em, user.id, input.issuer)) !== undefined)
      return refuse('identity_conflict', `the account of ${email} is bound to another identity at this provider`, user.id, { email });
    return signInAs(ctx, input, user.id, email);
  },
});

const OidcSessionInput = z.strictObject({
  issuer: z.string(),
  subject: z.string(),
  user_id: z.uuid(),
  email: z.string(),
  user_agent: z.string().nullish(),
  previous_session_token: z.string().nullish(),
});

/** The identity bound (or its sign-in recorded) and the session started, in one transaction. */
const oidcSession = defineOperation<z.infer<typeof OidcSessionInput>, StartedSession>({
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

const identityConflict = (email: string) =>
  new DomainError('forbidden', `the account of ${email} is bound to another identity at this provider`, { code: 'identity_conflict', extra: { email } });

async function signInAs(ctx: OpContext, input: SignInOidcInput, userId: string, email: string): Promise<StartedSession> {
  try {
    return await ctx.call(oidcSession, {
      issuer: input.issuer,
      subject: input.subject,
      user_id: userId,
      email,
      user_agent: input.user_agent,
      previous_session_token: input.previous_session_token,
    });
  } catch (err) {
    // Another identity bound the account between the check and the write.
    if (err instanceof DomainError && err.code === 'identity_conflict') return refuseSignIn(ctx, input, 'identity_conflict', err.message, userId, { email });
    throw err;
  }
}

async function refuseSignIn(
  ctx: OpContext,
  input: SignInOidcInput,
  code: OidcRefusal,
  message: string,
  userId: string | null,
  extra: Record<string, unknown>,
): Promise<never> {
  await insertAudit(ctx.em, ctx, {
    action: WEB_AUDIT.signInRefused,
    actorUserId: userId,
    targetType: 'oidc_identity',
    targetId: null,
    summary: { reason: code, issuer: input.issuer, subject: input.subject, email: input.email ?? null, email_verified: input.email_verified ?? null },
  });
  throw new DomainError('forbidden', message, { code, extra });
}
