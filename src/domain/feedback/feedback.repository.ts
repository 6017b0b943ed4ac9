// Named feedback queries (migration Migration20261122070000Feedback). Plain SQL on the operation's
// EntityManager, inside its transaction when there is one. Visibility is applied IN SQL
// (visibleFeedbackSql, the same rules as feedback.rules.ts canSeeFeedback); a row the caller may
// not see is never read into the process.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { canSeeAllProjects } from '../projects/project-roles.rules.js';
import type { FeedbackStatus } from './feedback.rules.js';
import { isoOrNull as iso } from '../timestamps.js';

export interface Viewer {
  userId: string;
  userRole: string;
}

/**
 * The visibility predicate over a `feedback` row aliased `alias`, for `viewer` at `now` (exported
 * for the cross-type search): not past its delete_after, and the author, an org-wide role
 * (admins, super admins, coordinators: every project's feedback and the triage pool), or a member
 * or owner of the feedback's active project (project feedback only).
 */
export function visibleFeedbackSql(alias: string, viewer: Viewer, now: Date): { sql: string; params: unknown[] } {
  const notExpired = `(${alias}.delete_after is null or ${alias}.delete_after > ?::timestamptz)`;
  if (canSeeAllProjects(viewer.userRole)) return { sql: notExpired, params: [now.toISOString()] };
  return {
    sql: `${notExpired} and (${alias}.author_user_id = ? or (not ${alias}.triage and ${alias}.project_id in (
        select m.project_id from project_members m join projects mp on mp.id = m.project_id where m.user_id = ? and mp.archived_at is null
        union select op.id from projects op where op.owner_user_id = ? and op.archived_at is null)))`,
    params: [now.toISOString(), viewer.userId, viewer.userId, viewer.userId],
  };
}

/**
 * SQL for "the author of `alias` may be shown to `viewerId`" (exported for the cross-type search:
 * an anonymous item's author is never shown, nor matched by an author filter, except to the author).
 */
export const authorShownSql = (alias: string): string => `(not ${alias}.is_anonymous or ${alias}.author_user_id = ?)`;

export interface FeedbackRow {
  id: string;
  projectId: string | null;
  projectSlug: string | null;
  projectName: string | null;
  authorUserId: string;
  authorEmail: string;
  authorName: string;
  isAnonymous: boolean;
  title: string;
  body: string;
  status: FeedbackStatus;
  triage: boolean;
  requestedProjectSlug: string | null;
  commentCount: number;
  createdAt: string;
  updatedAt: string;
  deleteAfter: string | null;
}

interface RawFeedback {
  id: string;
  project_id: string | null;
  project_slug: string | null;
  project_name: string | null;
  author_user_id: string;
  author_email: string;
  author_name: string;
  is_anonymous: boolean;
  title: string;
  body: string;
  status: string;
  triage: boolean;
  requested_project_slug: string | null;
  comment_count: number | string;
  created_at: Date | string;
  updated_at: Date | string;
  delete_after: Date | string | null;
}

const toFeedback = (r: RawFeedback): FeedbackRow => ({
  id: r.id,
  projectId: r.project_id,
  projectSlug: r.project_slug,
  projectName: r.project_name,
  authorUserId: r.author_user_id,
  authorEmail: r.author_email,
  authorName: r.author_name,
  isAnonymous: r.is_anonymous,
  title: r.title,
  body: r.body,
  status: r.status as FeedbackStatus,
  triage: r.triage,
  requestedProjectSlug: r.requested_project_slug,
  commentCount: Number(r.comment_count),
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
  deleteAfter: iso(r.delete_after),
});

const FEEDBACK_SELECT = `select f.id, f.project_id, p.slug as project_slug, p.name as project_name, f.author_user_id, u.email as author_email, u.name as author_name,
    f.is_anonymous, f.title, f.body, f.status, f.triage, f.requested_project_slug, f.created_at, f.updated_at, f.delete_after,
    (select count(*) from feedback_comments c where c.feedback_id = f.id) as comment_count
  from feedback f join users u on u.id = f.author_user_id left join projects p on p.id = f.project_id`;

export interface NewFeedback {
  id: string;
  projectId: string | null;
  authorUserId: string;
  isAnonymous: boolean;
  title: string;
  body: string;
  status: FeedbackStatus;
  triage: boolean;
  requestedProjectSlug: string | null;
  now: Date;
  deleteAfter: Date | null;
}

export async function insertFeedback(em: EntityManager, f: NewFeedback): Promise<void> {
  const now = f.now.toISOString();
  await run(
    em,
    `insert into feedback (id, project_id, author_user_id, is_anonymous, title, body, status, triage, requested_project_slug, created_at, updated_at, delete_after)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz)`,
    [
      f.id,
      f.projectId,
      f.authorUserId,
      f.isAnonymous,
      f.title,
      f.body,
      f.status,
      f.triage,
      f.requestedProjectSlug,
      now,
      now,
      f.deleteAfter?.toISOString() ?? null,
    ],
  );
}

/**
 * One feedback the viewer may see, or undefined (absent, expired and invisible alike). `lock`
 * (FOR NO KEY UPDATE) holds it against deletion and serialises writers of one feedback: a shared
 * lock would deadlock two commenters that both go on to touch updated_at.
 */
export async function findVisibleFeedback(em: EntityManager, id: string, viewer: Viewer, now: Date, lock = false): Promise<FeedbackRow | undefined> {
  const vis = visibleFeedbackSql('f', viewer, now);
  const rows = await run<RawFeedback>(em, `${FEEDBACK_SELECT} where f.id = ? and ${vis.sql}${lock ? ' for no key update of f' : ''}`, [id, ...vis.params]);
  return rows[0] ? toFeedback(rows[0]) : undefined;
}

export interface FeedbackListFilter {
  projectSlug?: string;
  triage?: boolean;
  mine?: boolean;
  status?: FeedbackStatus;
  limit: number;
}

/** Feedback the viewer may see, newest first; every filter in SQL. */
export async function listVisibleFeedback(em: EntityManager, viewer: Viewer, now: Date, f: FeedbackListFilter): Promise<FeedbackRow[]> {
  const vis = visibleFeedbackSql('f', viewer, now);
  const where = [vis.sql];
  const params: unknown[] = [...vis.params];
  if (f.projectSlug !== undefined) {
    where.push('p.slug = ?');
    params.push(f.projectSlug.toLowerCase());
  }
  if (f.triage !== undefined) where.push(f.triage ? 'f.triage' : 'not f.triage');
  if (f.mine) {
    where.push('f.author_user_id = ?');
    params.push(viewer.userId);
  }
  if (f.status !== undefined) {
    where.push('f.status = ?');
    params.push(f.status);
  }
  params.push(f.limit);
  const rows = await run<RawFeedback>(em, `${FEEDBACK_SELECT} where ${where.join(' and ')} order by f.created_at desc, f.id desc limit ?`, params);
  return rows.map(toFeedback);
}

export async function touchFeedback(em: EntityManager, id: string, now: Date): Promise<void> {
  await run(em, `update feedback set updated_at = ?::timestamptz where id = ?`, [now.toISOString(), id]);
}

export interface CommentRow {
  id: string;
  authorUserId: string;
  authorEmail: string;
  authorName: string;
  body: string;
  clientMessageId: string | null;
  createdAt: string;
}

interface RawComment {
  id: string;
  author_user_id: string;
  author_email: string;
  author_name: string;
  body: string;
  client_message_id: string | null;
  created_at: Date | string;
}

const toComment = (r: RawComment): CommentRow => ({
  id: r.id,
  authorUserId: r.author_user_id,
  authorEmail: r.author_email,
  authorName: r.author_name,
  body: r.body,
  clientMessageId: r.client_message_id,
  createdAt: iso(r.created_at)!,
});

/** The newest `limit` comments, returned oldest first. */
export async function recentFeedbackComments(em: EntityManager, feedbackId: string, limit: number): Promise<CommentRow[]> {
  const rows = await run<RawComment>(
    em,
    `select * from (
       select c.id, c.author_user_id, u.email as author_email, u.name as author_name, c.body, c.client_message_id, c.created_at
         from feedback_comments c join users u on u.id = c.author_user_id
        where c.feedback_id = ? order by c.created_at desc, c.id desc limit ?) x
      order by x.created_at, x.id`,
    [feedbackId, limit],
  );
  return rows.map(toComment);
}

/**
 * Inserts a comment; with a client_message_id already used by this author on this feedback,
 * nothing is inserted and the earlier comment is returned (`inserted` false). Concurrent
 * duplicates resolve on the unique index: one row, both callers get its id.
 */
export async function insertCommentOnce(
  em: EntityManager,
  c: { feedbackId: string; authorUserId: string; body: string; clientMessageId: string | null; now: Date },
): Promise<{ id: string; body: string; inserted: boolean }> {
  const id = randomUUID();
  if (c.clientMessageId === null) {
    await run(
      em,
      `insert into feedback_comments (id, feedback_id, author_user_id, body, client_message_id, created_at) values (?, ?, ?, ?, null, ?::timestamptz)`,
      [id, c.feedbackId, c.authorUserId, c.body, c.now.toISOString()],
    );
    return { id, body: c.body, inserted: true };
  }
  const rows = await run<{ id: string }>(
    em,
    `insert into feedback_comments (id, feedback_id, author_user_id, body, client_message_id, created_at) values (?, ?, ?, ?, ?, ?::timestamptz)
     on conflict (feedback_id, author_user_id, client_message_id) where client_message_id is not null do nothing
     returning id`,
    [id, c.feedbackId, c.authorUserId, c.body, c.clientMessageId, c.now.toISOString()],
  );
  if (rows.length > 0) return { id, body: c.body, inserted: true };
  const [existing] = await run<{ id: string; body: string }>(
    em,
    `select id, body from feedback_comments where feedback_id = ? and author_user_id = ? and client_message_id = ?`,
    [c.feedbackId, c.authorUserId, c.clientMessageId],
  );
  return { id: existing!.id, body: existing!.body, inserted: false };
}

/**
 * Deletes up to `limit` feedback rows whose delete_after has passed (their comments cascade) and
 * writes one audit row per deleted feedback, in ONE statement: both happen or neither does.
 * `skip locked` lets two job runners share the work. Returns the deleted ids.
 */
export async function deleteExpiredFeedback(
  em: EntityManager,
  now: Date,
  limit: number,
  audit: { action: string; source: string; requestId: string },
): Promise<string[]> {
  const at = now.toISOString();
  const rows = await run<{ target_id: string }>(
    em,
    `with due as (
       select id from feedback where delete_after <= ?::timestamptz order by delete_after, id limit ? for update skip locked
     ), gone as (
       delete from feedback f using due where f.id = due.id
       returning f.id, f.project_id, f.triage, f.is_anonymous, f.delete_after,
         (select count(*) from feedback_comments c where c.feedback_id = f.id) as comment_count
     )
     insert into audit_log (id, action, source, actor_user_id, token_id, target_type, target_id, request_id, summary, created_at)
     select gen_random_uuid(), ?, ?, null, null, 'feedback', gone.id::text, ?,
            jsonb_build_object('projectId', gone.project_id, 'triage', gone.triage, 'anonymous', gone.is_anonymous,
                               'deleteAfter', gone.delete_after, 'commentCount', gone.comment_count),
            ?::timestamptz
       from gone
     returning target_id`,
    [at, limit, audit.action, audit.source, audit.requestId, at],
  );
  return rows.map((r) => r.target_id);
}
