// Named queries of OIDC identities (Migration20261128100000OidcIdentities): which user an
// (issuer, subject) pair of the company's identity provider signs in as.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';

export interface BoundUser {
  userId: string;
  email: string;
  status: string;
}

/** The user bound to this identity, if any. */
export async function findBoundUser(em: EntityManager, issuer: string, subject: string): Promise<BoundUser | undefined> {
  const rows = await run<{ user_id: string; email: string; status: string }>(
    em,
    `select i.user_id, u.email, u.status from oidc_identities i join users u on u.id = i.user_id where i.issuer = ? and i.subject = ?`,
    [issuer, subject],
  );
  const r = rows[0];
  return r ? { userId: r.user_id, email: r.email, status: r.status } : undefined;
}

/** The subject this user is bound to at `issuer`, if any. */
export async function findSubjectOfUser(em: EntityManager, userId: string, issuer: string): Promise<string | undefined> {
  const rows = await run<{ subject: string }>(em, `select subject from oidc_identities where user_id = ? and issuer = ?`, [userId, issuer]);
  return rows[0]?.subject;
}

/**
 * Binds the identity to the user, or records a sign-in of an existing binding. False when the
 * pair or the user's slot at this issuer is taken by another binding (a concurrent first sign-in
 * won the race): nothing is written then.
 */
export async function bindIdentity(em: EntityManager, b: { issuer: string; subject: string; userId: string; email: string; now: Date }): Promise<boolean> {
  const rows = await run<{ user_id: string }>(
    em,
    `insert into oidc_identities (issuer, subject, user_id, email_at_binding, created_at, last_sign_in_at)
     values (?, ?, ?, ?, ?::timestamptz, ?::timestamptz)
     on conflict do nothing
     returning user_id`,
    [b.issuer, b.subject, b.userId, b.email, b.now.toISOString(), b.now.toISOString()],
  );
  if (rows.length > 0) return true;
  const updated = await run<{ user_id: string }>(
    em,
    `update oidc_identities set last_sign_in_at = ?::timestamptz where issuer = ? and subject = ? and user_id = ? returning user_id`,
    [b.now.toISOString(), b.issuer, b.subject, b.userId],
  );
  return updated.length > 0;
}
