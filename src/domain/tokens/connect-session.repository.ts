// Connect sessions (connect-session.shared.ts): stored by the hash of their id, used at most once.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';

export interface ConnectSessionRow {
  id: string;
  userId: string;
  scopes: string[];
  label: string;
}

export async function insertConnectSession(
  em: EntityManager,
  s: { sessionHash: string; userId: string; scopes: string[]; label: string; expiresAt: Date; now: Date },
): Promise<string> {
  const id = randomUUID();
  await em.getConnection().execute(
    `insert into connect_sessions (id, session_hash, user_id, scopes, label, expires_at, used_at, created_at)
     values (?, ?, ?, ?::jsonb, ?, ?::timestamptz, null, ?::timestamptz)`,
    [id, s.sessionHash, s.userId, JSON.stringify(s.scopes), s.label, s.expiresAt.toISOString(), s.now.toISOString()],
    'run',
    em.getTransactionContext(),
  );
  return id;
}

/**
 * Marks an unused, unexpired session used and returns it, in one statement: of two concurrent
 * exchanges exactly one gets the row. Unknown, used and expired all come back as undefined.
 */
export async function consumeConnectSession(em: EntityManager, sessionHash: string, now: Date): Promise<ConnectSessionRow | undefined> {
  const rows = (await em.getConnection().execute(
    `update connect_sessions set used_at = ?::timestamptz
      where session_hash = ? and used_at is null and expires_at > ?::timestamptz
      returning id, user_id, scopes, label`,
    [now.toISOString(), sessionHash, now.toISOString()],
    'all',
    em.getTransactionContext(),
  )) as Array<{ id: string; user_id: string; scopes: string[] | string; label: string }>;
  const r = rows[0];
  if (!r) return undefined;
  return { id: r.id, userId: r.user_id, scopes: typeof r.scopes === 'string' ? (JSON.parse(r.scopes) as string[]) : r.scopes, label: r.label };
}
