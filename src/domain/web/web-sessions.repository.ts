// Named queries of web sign-in: sessions, one-time login links and pending OIDC logins
// (Migration20261125000000WebSessions). Only hashes of secrets are ever written or compared.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';

export interface SessionRow {
  id: string;
  userId: string;
  csrfHash: string;
  lastSeenAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  userEmail: string;
  userName: string;
  userRole: string;
  userStatus: string;
}

export async function insertSession(
  em: EntityManager,
  s: { userId: string; tokenHash: string; csrfHash: string; now: Date; expiresAt: Date; userAgent: string | null; signedInBy: 'login_link' | 'oidc' },
): Promise<string> {
  const id = randomUUID();
  await run(
    em,
    `insert into web_sessions (id, user_id, token_hash, csrf_hash, created_at, last_seen_at, expires_at, revoked_at, user_agent, signed_in_by)
     values (?, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz, null, ?, ?)`,
    [id, s.userId, s.tokenHash, s.csrfHash, s.now.toISOString(), s.now.toISOString(), s.expiresAt.toISOString(), s.userAgent, s.signedInBy],
  );
  return id;
}

/** The session with this cookie hash and its user, live or not (the caller decides). */
export async function findSession(em: EntityManager, tokenHash: string): Promise<SessionRow | undefined> {
  const rows = await run<{
    id: string;
    user_id: string;
    csrf_hash: string;
    last_seen_at: Date | string;
    expires_at: Date | string;
    revoked_at: Date | string | null;
    email: string;
    name: string;
    role: string;
    status: string;
  }>(
    em,
    `select s.id, s.user_id, s.csrf_hash, s.last_seen_at, s.expires_at, s.revoked_at, u.email, u.name, u.role, u.status
       from web_sessions s join users u on u.id = s.user_id
      where s.token_hash = ?`,
    [tokenHash],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    id: r.id,
    userId: r.user_id,
    csrfHash: r.csrf_hash,
    lastSeenAt: new Date(r.last_seen_at),
    expiresAt: new Date(r.expires_at),
    revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at),
    userEmail: r.email,
    userName: r.name,
    userRole: r.role,
    userStatus: r.status,
  };
}

/** Slides the idle timeout (only forward: two concurrent calls never move it back). */
export async function touchSession(em: EntityManager, id: string, now: Date): Promise<void> {
  await run(em, `update web_sessions set last_seen_at = ?::timestamptz where id = ? and last_seen_at < ?::timestamptz`, [
    now.toISOString(),
    id,
    now.toISOString(),
  ]);
}

/** Ends one session (by its cookie hash); returns its user, or undefined when there was no live row. */
export async function revokeSessionByHash(em: EntityManager, tokenHash: string, now: Date): Promise<{ id: string; userId: string } | undefined> {
  const rows = await run<{ id: string; user_id: string }>(
    em,
    `update web_sessions set revoked_at = ?::timestamptz where token_hash = ? and revoked_at is null returning id, user_id`,
    [now.toISOString(), tokenHash],
  );
  return rows[0] ? { id: rows[0].id, userId: rows[0].user_id } : undefined;
}

/** Ends every session of a user; returns how many were live. */
export async function revokeUserSessions(em: EntityManager, userId: string, now: Date): Promise<number> {
  const rows = await run<{ id: string }>(em, `update web_sessions set revoked_at = ?::timestamptz where user_id = ? and revoked_at is null returning id`, [
    now.toISOString(),
    userId,
  ]);
  return rows.length;
}

export async function insertLoginLink(em: EntityManager, l: { tokenHash: string; userId: string; now: Date; expiresAt: Date }): Promise<string> {
  const id = randomUUID();
  await run(em, `insert into login_links (id, token_hash, user_id, created_at, expires_at, used_at) values (?, ?, ?, ?::timestamptz, ?::timestamptz, null)`, [
    id,
    l.tokenHash,
    l.userId,
    l.now.toISOString(),
    l.expiresAt.toISOString(),
  ]);
  return id;
}

/**
 * Marks an unused, unexpired link used and returns it, in one statement: of two concurrent
 * redemptions exactly one gets the row. Unknown, used and expired all come back as undefined.
 */
export async function consumeLoginLink(em: EntityManager, tokenHash: string, now: Date): Promise<{ id: string; userId: string } | undefined> {
  const rows = await run<{ id: string; user_id: string }>(
    em,
    `update login_links set used_at = ?::timestamptz
      where token_hash = ? and used_at is null and expires_at > ?::timestamptz
      returning id, user_id`,
    [now.toISOString(), tokenHash, now.toISOString()],
  );
  return rows[0] ? { id: rows[0].id, userId: rows[0].user_id } : undefined;
}

/**
 * Keeps the server-side half of an OIDC sign-in, unless `pendingMax` are already pending (neither
 * used nor expired): false then, and nothing is written. One statement, so the count and the
 * insert see the same rows.
 */
export async function insertOidcLogin(
  em: EntityManager,
  l: { stateHash: string; codeVerifier: string; nonce: string; nextPath: string; now: Date; expiresAt: Date },
  pendingMax: number,
): Promise<boolean> {
  const rows = await run<{ id: string }>(
    em,
    `insert into oidc_logins (id, state_hash, code_verifier, nonce, next_path, created_at, expires_at, used_at)
     select ?::uuid, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz, null
      where (select count(*) from (select 1 from oidc_logins where used_at is null and expires_at > ?::timestamptz limit ?) pending) < ?
     returning id`,
    [
      randomUUID(),
      l.stateHash,
      l.codeVerifier,
      l.nonce,
      l.nextPath,
      l.now.toISOString(),
      l.expiresAt.toISOString(),
      l.now.toISOString(),
      pendingMax,
      pendingMax,
    ],
  );
  return rows.length > 0;
}

/** Single use, like consumeLoginLink. */
export async function consumeOidcLogin(
  em: EntityManager,
  stateHash: string,
  now: Date,
): Promise<{ codeVerifier: string; nonce: string; nextPath: string } | undefined> {
  const rows = await run<{ code_verifier: string; nonce: string; next_path: string }>(
    em,
    `update oidc_logins set used_at = ?::timestamptz
      where state_hash = ? and used_at is null and expires_at > ?::timestamptz
      returning code_verifier, nonce, next_path`,
    [now.toISOString(), stateHash, now.toISOString()],
  );
  const r = rows[0];
  return r ? { codeVerifier: r.code_verifier, nonce: r.nonce, nextPath: r.next_path } : undefined;
}

/** Rows no request can use any more, older than `before`: ended or expired sessions, used or expired links and OIDC logins. */
export async function deleteDeadSignInRows(em: EntityManager, before: Date): Promise<number> {
  const b = before.toISOString();
  const sessions = await run<{ id: string }>(
    em,
    `delete from web_sessions where expires_at < ?::timestamptz or revoked_at < ?::timestamptz or last_seen_at < ?::timestamptz - interval '12 hours' returning id`,
    [b, b, b],
  );
  const links = await run<{ id: string }>(em, `delete from login_links where expires_at < ?::timestamptz returning id`, [b]);
  const logins = await run<{ id: string }>(em, `delete from oidc_logins where expires_at < ?::timestamptz returning id`, [b]);
  return sessions.length + links.length + logins.length;
}
