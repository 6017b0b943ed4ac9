import type { EntityManager } from '@mikro-orm/core';
import { User } from './users.entity.js';
import { DomainError } from '../errors.js';
import { normalizeEmail } from './users.rules.js';

export async function findUserByEmail(em: EntityManager, email: string): Promise<User | null> {
  return em.findOne(User, { email: normalizeEmail(email) });
}

/** For operator and admin lookups by email: 422 user-not-found with the email (SPEC Errors). */
export async function requireUserByEmail(em: EntityManager, email: string): Promise<User> {
  const u = await findUserByEmail(em, email);
  if (!u) {
    throw new DomainError('unprocessable', `no user with email ${normalizeEmail(email)}`, {
      code: 'user_not_found',
      typeSlug: 'user-not-found',
      extra: { email: normalizeEmail(email) },
    });
  }
  return u;
}

