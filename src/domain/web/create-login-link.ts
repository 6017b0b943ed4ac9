// `fluxdesk login-link --email E` (operator): a one-time sign-in link for an existing, active user
// whose email domain is allowed, valid 10 minutes. Stored hashed; the value is only in
// the printed URL.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { assertDomainAllowed, normalizeEmail } from '../users/users.rules.js';
import { LOGIN_LINK_PREFIX, LOGIN_LINK_TTL_MS, newSecret, secretHash } from './web-session.rules.js';
import { insertLoginLink } from './web-sessions.repository.js';
import { WEB_AUDIT } from './start-session.js';
import { USER_LIMITS } from '../users/users.limits.js';

export const CreateLoginLinkInput = z.strictObject({ email: z.email().max(USER_LIMITS.emailMax) });

export interface LoginLinkCreated {
  url: string;
  expiresAt: string;
}

export const createLoginLink = defineOperation<z.infer<typeof CreateLoginLinkInput>, LoginLinkCreated>({
  name: 'web.create_login_link',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: CreateLoginLinkInput,
  handler: async (input, ctx) => {
    assertDomainAllowed(normalizeEmail(input.email), ctx.config.allowedEmailDomains);
    const user = await requireUserByEmail(ctx.em, input.email);
    if (user.status !== 'active') throw new DomainError('conflict', `user is ${user.status}`, { code: 'user_inactive', extra: { email: user.email } });
    const now = ctx.clock.now();
    const token = newSecret(LOGIN_LINK_PREFIX);
    const expiresAt = new Date(now.getTime() + LOGIN_LINK_TTL_MS);
    const id = await insertLoginLink(ctx.em, { tokenHash: secretHash(token), userId: user.id, now, expiresAt });
    recordAudit(ctx.em, ctx, { action: WEB_AUDIT.loginLinkCreated, actorUserId: null, targetType: 'login_link', targetId: id, summary: { user_id: user.id } });
    return { url: `${ctx.config.publicBaseUrl}/auth/link/${token}`, expiresAt: expiresAt.toISOString() };
  },
});
