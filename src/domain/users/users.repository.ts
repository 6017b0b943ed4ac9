import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
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

export async function userExists(em: EntityManager, userId: string): Promise<boolean> {
  const rows = await run<{ id: string }>(em, `select id from users where id = ?`, [userId]);
  return rows.length > 0;
}

export interface UserSearchRow {
  id: string;
  email: string;
  name: string;
  role: string;
  status: string;
  created_at: Date | string;
}

/** LIKE pattern text with its wildcards escaped (the escape character is `\`). */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Users whose email local part contains `term` (lower case): exact matches first, then prefix
 * matches, then the rest, by email; at most `limit`. Emails are stored lower-case.
 */
export async function searchUsersByLocalPart(em: EntityManager, term: string, onlyActive: boolean, limit: number): Promise<UserSearchRow[]> {
  const lit = likeLiteral(term);
  return (await em.getConnection().execute(
    `select id, email, name, role, status, created_at from users
        where split_part(email, '@', 1) like ? escape '\\' and (not ?::boolean or status = 'active')
        order by (split_part(email, '@', 1) = ?) desc, (split_part(email, '@', 1) like ? escape '\\') desc, email
        limit ?`,
    [`%${lit}%`, onlyActive, term, `${lit}%`, limit],
  )) as UserSearchRow[];
}
