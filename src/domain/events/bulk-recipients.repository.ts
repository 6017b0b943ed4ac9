// Named reads of the bulk fan-out (publish-bulk.ts): recipients, their claimed tokens, projects and
// their members. Each is one statement, in the caller's transaction when it is in one.
import type { EntityManager } from '@mikro-orm/core';
import { pgArray } from '../sql-hints.js';
import { run } from '../sql.js';

export interface RecipientUserRow {
  id: string;
  email: string;
  status: string;
}

export interface ClaimedTokenRow {
  id: string;
  owner_user_id: string;
  status: string;
  /** Circuit breaker of the claimed token: suspended until then (row error `circuit_open`). */
  breaker_open_until?: Date | string | null;
}

/** Users named by email or by id, in one read. */
export function findRecipientUsers(em: EntityManager, emails: readonly string[], ids: readonly string[]): Promise<RecipientUserRow[]> {
  return run(em, `select id, email, status from users where email = any(?::text[]) or id = any(?::uuid[])`, [pgArray(emails), pgArray(ids)]);
}

/** The claimed tokens of `integratorId` owned by these users, active ones first, newest first. */
export function findClaimedTokens(em: EntityManager, integratorId: string, userIds: readonly string[]): Promise<ClaimedTokenRow[]> {
  return run(
    em,
    `select id, owner_user_id, status, breaker_open_until from inbound_tokens
      where integrator_id = ? and claimed_by_tools_token_id is not null and owner_user_id = any(?::uuid[]) and status in ('active', 'disabled')
      order by (status = 'active') desc, created_at desc`,
    [integratorId, pgArray(userIds)],
  );
}

/** Member emails of the active project (group) `slug`, or null when there is no such active project. */
export async function findGroupMemberEmails(em: EntityManager, slug: string): Promise<string[] | null> {
  const rows = await run<{ email: string }>(
    em,
    `select u.email from projects p join project_members m on m.project_id = p.id join users u on u.id = m.user_id
      where p.slug = ? and p.archived_at is null order by u.email`,
    [slug],
  );
  if (rows.length > 0) return rows.map((r) => r.email);
  const exists = (await run(em, `select 1 from projects where slug = ? and archived_at is null`, [slug])).length > 0;
  return exists ? [] : null;
}

export function findProjectBySlug(em: EntityManager, slug: string): Promise<{ id: string; archived_at: unknown } | undefined> {
  return run<{ id: string; archived_at: unknown }>(em, `select id, archived_at from projects where slug = ?`, [slug]).then((rows) => rows[0]);
}

/** Which of `userIds` are members (or the owner) of the project. */
export async function findProjectMembers(em: EntityManager, projectId: string, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await run<{ user_id: string }>(
    em,
    `select user_id from project_members where project_id = ? and user_id = any(?::uuid[])
     union select owner_user_id from projects where id = ? and owner_user_id = any(?::uuid[])`,
    [projectId, pgArray(userIds), projectId, pgArray(userIds)],
  );
  return new Set(rows.map((r) => r.user_id));
}
