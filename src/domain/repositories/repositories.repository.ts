// Named queries of the repositories area. Plain SQL that runs on PostgreSQL and on PGlite alike.
// Project visibility is decided before any of these run (projects.repository findVisibleProject):
// every read here is scoped by a project id the caller may see.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import type { RepositoryProvider } from './repositories.rules.js';

const q = run;

export interface RepositoryRow {
  id: string;
  project_id: string;
  provider: RepositoryProvider;
  repo_key: string;
  full_name: string;
  web_url: string;
  ssh_url: string;
  default_branch: string;
  webhook_secret: string;
  created_at: Date | string;
  archived_at: Date | string | null;
  last_push_at: Date | string | null;
}

const COLUMNS = 'id, project_id, provider, repo_key, full_name, web_url, ssh_url, default_branch, webhook_secret, created_at, archived_at, last_push_at';

// ---- Capabilities ----

export const CAPABILITIES = ['code.repo.bind'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export async function userHasCapability(em: EntityManager, userId: string, capability: Capability): Promise<boolean> {
  const rows = await q<{ one: number }>(em, 'select 1 as one from user_capabilities where user_id = ? and capability = ?', [userId, capability]);
  return rows.length > 0;
}

/** True when the grant is new. */
export async function grantCapability(em: EntityManager, userId: string, capability: Capability, now: Date): Promise<boolean> {
  const rows = await q<{ user_id: string }>(
    em,
    'insert into user_capabilities (user_id, capability, granted_at) values (?, ?, ?) on conflict do nothing returning user_id',
    [userId, capability, now],
  );
  return rows.length > 0;
}

/** True when a grant was removed. */
export async function revokeCapability(em: EntityManager, userId: string, capability: Capability): Promise<boolean> {
  const rows = await q<{ user_id: string }>(em, 'delete from user_capabilities where user_id = ? and capability = ? returning user_id', [userId, capability]);
  return rows.length > 0;
}

// ---- Repositories ----

/** The project's row for a repository key, locked for the bind/unbind transaction. */
export async function findRepositoryByKey(em: EntityManager, projectId: string, key: string, forUpdate = false): Promise<RepositoryRow | undefined> {
  const rows = await q<RepositoryRow>(
    em,
    `select ${COLUMNS} from project_repositories where project_id = ? and repo_key = ?${forUpdate ? ' for update' : ''}`,
    [projectId, key],
  );
  return rows[0];
}

export async function findRepositoryById(em: EntityManager, id: string, forUpdate = false): Promise<RepositoryRow | undefined> {
  const rows = await q<RepositoryRow>(em, `select ${COLUMNS} from project_repositories where id = ?${forUpdate ? ' for update' : ''}`, [id]);
  return rows[0];
}

export interface NewRepository {
  id: string;
  projectId: string;
  provider: RepositoryProvider;
  key: string;
  fullName: string;
  webUrl: string;
  sshUrl: string;
  defaultBranch: string;
  webhookSecret: string;
  boundByUserId: string;
  now: Date;
}

/**
 * Inserts the binding unless (project, key) exists; returns the row and whether it is new. Two
 * concurrent binds of the same URL: one inserts, the other sees the conflict and reads the row.
 */
export async function insertRepository(em: EntityManager, r: NewRepository): Promise<{ row: RepositoryRow; created: boolean }> {
  const inserted = await q<RepositoryRow>(
    em,
    `insert into project_repositories (id, project_id, provider, repo_key, full_name, web_url, ssh_url, default_branch, webhook_secret, bound_by_user_id, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (project_id, repo_key) do nothing
     returning ${COLUMNS}`,
    [r.id, r.projectId, r.provider, r.key, r.fullName, r.webUrl, r.sshUrl, r.defaultBranch, r.webhookSecret, r.boundByUserId, r.now, r.now],
  );
  if (inserted[0]) return { row: inserted[0], created: true };
  return { row: (await findRepositoryByKey(em, r.projectId, r.key, true))!, created: false };
}

/** Updates a binding in place (re-bind): settings, and optionally restore with a new secret. */
export async function updateRepository(
  em: EntityManager,
  id: string,
  set: { sshUrl: string; defaultBranch: string; restoreWithSecret?: string; boundByUserId: string; now: Date },
): Promise<RepositoryRow> {
  const restore = set.restoreWithSecret !== undefined;
  const rows = await q<RepositoryRow>(
    em,
    `update project_repositories set ssh_url = ?, default_branch = ?, updated_at = ?${restore ? ', archived_at = null, last_push_at = null, webhook_secret = ?, bound_by_user_id = ?' : ''}
      where id = ? returning ${COLUMNS}`,
    restore ? [set.sshUrl, set.defaultBranch, set.now, set.restoreWithSecret, set.boundByUserId, id] : [set.sshUrl, set.defaultBranch, set.now, id],
  );
  return rows[0]!;
}

export async function archiveRepository(em: EntityManager, id: string, now: Date): Promise<void> {
  await q(em, 'update project_repositories set archived_at = ?, updated_at = ? where id = ? and archived_at is null', [now, now, id]);
}

/** A project's repositories: active ones first, then by name. */
export async function listProjectRepositories(em: EntityManager, projectId: string): Promise<RepositoryRow[]> {
  return q<RepositoryRow>(em, `select ${COLUMNS} from project_repositories where project_id = ? order by (archived_at is not null), lower(full_name), id`, [
    projectId,
  ]);
}

// ---- Commits ----

export interface IncomingCommit {
  sha: string;
  title: string;
  url: string | null;
  author_name: string;
  author_email: string;
  occurred_at: string;
}

/**
 * Stores a push's commits: one row per (repository, sha); a sha seen again only gains the
 * branch. Returns how many rows were new. One statement, so concurrent deliveries of the same
 * push cannot make duplicates.
 */
export async function upsertCommits(
  em: EntityManager,
  repo: { id: string; projectId: string },
  branch: string,
  commits: IncomingCommit[],
  now: Date,
): Promise<number> {
  if (commits.length === 0) return 0;
  const rows = await q<{ inserted: boolean }>(
    em,
    `insert into repository_commits (repository_id, sha, project_id, branches, title, url, author_name, author_email, occurred_at, received_at)
     select ?, c.sha, ?, array[?]::text[], c.title, c.url, c.author_name, c.author_email, c.occurred_at::timestamptz, ?
       from jsonb_to_recordset(?::jsonb) as c(sha text, title text, url text, author_name text, author_email text, occurred_at text)
     on conflict (repository_id, sha) do update
        set branches = case when ? = any(repository_commits.branches) then repository_commits.branches else repository_commits.branches || excluded.branches end
     returning (xmax = 0) as inserted`,
    [repo.id, repo.projectId, branch, now, JSON.stringify(commits), branch],
  );
  return rows.filter((r) => r.inserted).length;
}

export async function markPushReceived(em: EntityManager, id: string, now: Date): Promise<void> {
  await q(em, 'update project_repositories set last_push_at = ? where id = ?', [now, id]);
}

export interface CommitRow {
  sha: string;
  title: string;
  url: string | null;
  author_name: string;
  author_email: string;
  occurred_at: Date | string;
  full_name: string;
  provider: RepositoryProvider;
}

/** Newest first; within the project, optionally one repository and one branch. */
export async function listCommits(em: EntityManager, f: { projectId: string; repositoryId?: string; branch?: string; limit: number }): Promise<CommitRow[]> {
  const where = [f.repositoryId ? 'c.repository_id = ?' : 'c.project_id = ?'];
  const params: unknown[] = [f.repositoryId ?? f.projectId];
  if (f.branch !== undefined) {
    where.push('? = any(c.branches)');
    params.push(f.branch);
  }
  params.push(f.limit);
  return q<CommitRow>(
    em,
    `select c.sha, c.title, c.url, c.author_name, c.author_email, c.occurred_at, r.full_name, r.provider
       from repository_commits c join project_repositories r on r.id = c.repository_id
      where ${where.join(' and ')}
      order by c.occurred_at desc, c.sha
      limit ?`,
    params,
  );
}

export const isoOf = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();
