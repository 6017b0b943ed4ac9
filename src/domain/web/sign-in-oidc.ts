// Company SSO (OpenID Connect, authorization code + PKCE), after the transport verified the ID
// token: who may sign in (docs/web-sign-in.md "Who signs in"). A person is their identity at the
// provider (issuer and `sub`), bound to their account at their first SSO sign-in by verified email
// and matched on every later one. Nobody is created on sign-in (users come from an invite or an operator).
import { z } from 'zod';
import { insertAudit } from '../audit/audit.js';
import { defineOperation, type OpContext } from '../context.js';
import { DomainError } from '../errors.js';
import { findUserByEmail } from '../users/users.repository.js';
import { assertDomainAllowed, normalizeEmail } from '../users/users.rules.js';
import { findBoundUser, findSubjectOfUser } from './oidc-identities.repository.js';
import { type StartedSession, WEB_AUDIT } from './start-session.js';
import { oidcSession } from './start-oidc-session.js';
import { WEB_LIMITS } from './web.limits.js';

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
