// Create a user (operators via CLI; admins invite through the agent tool `invite_user`). Idempotent on email only for
// bootstrap; a plain create of an existing email is 422 user-already-exists.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/core';
import { defineOperation, type OpContext } from '../context.js';
import { DomainError } from '../errors.js';
import { User, USER_ROLES } from './users.entity.js';
import { assertDomainAllowed, normalizeEmail } from './users.rules.js';
import { findUserByEmail } from './users.repository.js';
import { USER_LIMITS } from './users.limits.js';

export const CreateUserInput = z.strictObject({
  email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax),
  name: z.string().min(1).max(USER_LIMITS.nameMax),
  role: z.enum(USER_ROLES).default('member'),
});

export interface UserCreated {
  userId: string;
  email: string;
}

export function insertUser(em: EntityManager, ctx: Pick<OpContext, 'clock'>, input: { email: string; name: string; role: string; status?: string }): User {
  const now = ctx.clock.now();
  return em.create(User, {
    id: randomUUID(),
    email: normalizeEmail(input.email),
    name: input.name,
    role: input.role,
    status: input.status ?? 'active',
    createdAt: now,
    updatedAt: now,
  });
}

/** 422 user-already-exists with `email` and `user_id` (a caller may treat it as an idempotent hit). */
export function userAlreadyExists(existing: { id: string; email: string }, extra: Record<string, unknown> = {}): DomainError {
  return new DomainError('unprocessable', `a user with email ${existing.email} already exists`, {
    code: 'user_already_exists',
    typeSlug: 'user-already-exists',
    extra: { email: existing.email, user_id: existing.id, ...extra },
  });
}

export const createUser = defineOperation<z.infer<typeof CreateUserInput>, UserCreated>({
  name: 'users.create',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: CreateUserInput,
  handler: async (input, ctx) => {
    assertDomainAllowed(normalizeEmail(input.email), ctx.config.allowedEmailDomains);
    const existing = await findUserByEmail(ctx.em, input.email);
    if (existing) throw userAlreadyExists(existing);
    const u = insertUser(ctx.em, ctx, input);
    return { userId: u.id, email: u.email };
  },
});
