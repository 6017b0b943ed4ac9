// First super admin (operator CLI). Idempotent for the same email: returns the same user and a
// fresh agent token with scopes ["*"] each time (token values are shown once, never stored).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError } from '../errors.js';
import { User } from './users.entity.js';
import { insertUser } from './create-user.js';
import { assertDomainAllowed, normalizeEmail } from './users.rules.js';
import { findUserByEmail } from './users.repository.js';
import { insertAgentToken } from '../tokens/create-agent-token.js';
import { USER_LIMITS } from './users.limits.js';

export const BootstrapInput = z.strictObject({
  email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax),
  name: z.string().min(1).max(USER_LIMITS.nameMax),
});

export interface Bootstrapped {
  userId: string;
  email: string;
  agentToken: string;
}

export const bootstrap = defineOperation<z.infer<typeof BootstrapInput>, Bootstrapped>({
  name: 'users.bootstrap',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: BootstrapInput,
  handler: async (input, ctx) => {
    const email = normalizeEmail(input.email);
    assertDomainAllowed(email, ctx.config.allowedEmailDomains);
    const em = ctx.em;
    let user = await findUserByEmail(em, email);
    if (!user) {
      const other = await em.findOne(User, { role: 'super_admin' });
      if (other) throw new DomainError('conflict', `already bootstrapped with ${other.email}`, { code: 'already_bootstrapped' });
      user = insertUser(em, ctx, { email, name: input.name, role: 'super_admin' });
      await em.flush(); // scalar foreign keys: the user row must exist before its token
    } else if (user.role !== 'super_admin') {
      user.role = 'super_admin';
      user.updatedAt = ctx.clock.now();
    }
    const { token } = insertAgentToken(em, ctx, user.id, ['*'], 'bootstrap');
    return { userId: user.id, email: user.email, agentToken: token };
  },
});
