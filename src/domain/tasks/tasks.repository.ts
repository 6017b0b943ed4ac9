// Named task queries (migration Migration20261122050000Tasks). Plain SQL on the operation's
// EntityManager, inside its transaction when there is one. Visibility is applied IN SQL: list
// queries start from the caller's memberships; single reads return the row and the callers
// decide (task-access.ts), answering "not visible" exactly like "absent".
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { pgArray } from '../sql-hints.js';
import { MAX_TASK_DEPTH, type TaskKind, type TaskPriority, type TaskStatus } from './tasks.rules.js';
import { isoOrNull as iso } from '../timestamps.js';

export interface TaskRow {
  id: string;
  projectId: string | null;
  code: string | null;
  title: string;
  description: string | null;
  kind: TaskKind;
  priority: TaskPriority;
  status: TaskStatus;
  dueDate: string | null;
  assigneeUserId: string | null;
  creatorUserId: string;
  parentTaskId: string | null;
  parentCode: string | null;
  isDraft: boolean;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
}

interface RawTask {
  id: string;
  project_id: string | null;
  code: string | null;
  title: string;
  description: string | null;
  kind: string;
  priority: string;
  status: string;
  due_date: string | null;
  assignee_user_id: string | null;
  creator_user_id: string;
  parent_task_id: string | null;
  parent_code: string | null;
  is_draft: boolean;
  created_at: Date | string;
  updated_at: Date | string;
  published_at: Date | string | null;
}

const toTask = (r: RawTask): TaskRow => ({
  id: r.id,
  projectId: r.project_id,
  code: r.code,
  title: r.title,
  description: r.description,
  kind: r.kind as TaskKind,
  priority: r.priority as TaskPriority,
  status: r.status as TaskStatus,
  dueDate: r.due_date,
  assigneeUserId: r.assignee_user_id,
  creatorUserId: r.creator_user_id,
  parentTaskId: r.parent_task_id,
  parentCode: r.parent_code,
  isDraft: r.is_draft,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
  publishedAt: iso(r.published_at),
});

// `due_date::text`: a DATE column would otherwise come back as a local-midnight JS Date.
const TASK_COLUMNS = `t.id, t.project_id, t.code, t.title, t.description, t.kind, t.priority, t.status, t.due_date::text as due_date,
  t.assignee_user_id, t.creator_user_id, t.parent_task_id, pt.code as parent_code, t.is_draft, t.created_at, t.updated_at, t.published_at`;

/** One task by id or code; `forUpdate` locks the row for the rest of the transaction. */
export async function findTask(em: EntityManager, ref: { id: string } | { code: string }, forUpdate = false): Promise<TaskRow | undefined> {
  const byId = 'id' in ref;
  const rows = await run<RawTask>(
    em,
    `select ${TASK_COLUMNS} from tasks t left join tasks pt on pt.id = t.parent_task_id
      where ${byId ? 't.id = ?' : 't.code = ?'}${forUpdate ? ' for update of t' : ''}`,
    [byId ? ref.id : ref.code],
  );
  return rows[0] ? toTask(rows[0]) : undefined;
}

/** Atomically takes the project's next task number (1, 2, ...). */
export async function nextTaskNumber(em: EntityManager, projectId: string): Promise<number> {
  const [r] = await run<{ last_number: number }>(
    em,
    `insert into project_task_counters (project_id, last_number) values (?, 1)
     on conflict (project_id) do update set last_number = project_task_counters.last_number + 1
     returning last_number`,
    [projectId],
  );
  return Number(r!.last_number);
}

export interface NewTask {
  id: string;
  projectId: string | null;
  number: number | null;
  code: string | null;
  title: string;
  description: string | null;
  kind: TaskKind;
  priority: TaskPriority;
  status: TaskStatus;
  dueDate: string | null;
  assigneeUserId: string | null;
  creatorUserId: string;
  parentTaskId: string | null;
  isDraft: boolean;
  now: Date;
}

export async function insertTask(em: EntityManager, t: NewTask): Promise<void> {
  const now = t.now.toISOString();
  await run(
    em,
    `insert into tasks (id, project_id, number, code, title, description, kind, priority, status, due_date, assignee_user_id, creator_user_id, parent_task_id, is_draft, created_at, updated_at, published_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::date, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz)`,
    [
      t.id,
      t.projectId,
      t.number,
      t.code,
      t.title,
      t.description,
      t.kind,
      t.priority,
      t.status,
      t.dueDate,
      t.assigneeUserId,
      t.creatorUserId,
      t.parentTaskId,
      t.isDraft,
      now,
      now,
      t.isDraft ? null : now,
    ],
  );
}

/** A draft becomes a published task with its project, number and code. */
export async function publishDraftRow(
  em: EntityManager,
  id: string,
  p: { projectId: string; number: number; code: string; parentTaskId: string | null; assigneeUserId: string | null; now: Date },
): Promise<void> {
  const now = p.now.toISOString();
  await run(
    em,
    `update tasks set project_id = ?, number = ?, code = ?, parent_task_id = ?, assignee_user_id = ?, is_draft = false, status = 'todo', published_at = ?::timestamptz, updated_at = ?::timestamptz
      where id = ? and is_draft`,
    [p.projectId, p.number, p.code, p.parentTaskId, p.assigneeUserId, now, now, id],
  );
}

export type TaskPeopleKind = 'reviewers' | 'cc';
const PEOPLE_TABLE: Record<TaskPeopleKind, string> = { reviewers: 'task_reviewers', cc: 'task_cc' };

export async function insertTaskPeople(em: EntityManager, kind: TaskPeopleKind, taskId: string, userIds: readonly string[], now: Date): Promise<void> {
  if (userIds.length === 0) return;
  await run(
    em,
    `insert into ${PEOPLE_TABLE[kind]} (task_id, user_id, position, created_at) select ?::uuid, u.id, u.n, ?::timestamptz from unnest(?::uuid[]) with ordinality as u (id, n) on conflict do nothing`,
    [taskId, now.toISOString(), pgArray(userIds)],
  );
}

/** Keeps only `keep` among the task's reviewers or cc (publish re-check). */
export async function retainTaskPeople(em: EntityManager, kind: TaskPeopleKind, taskId: string, keep: readonly string[]): Promise<void> {
  await run(em, `delete from ${PEOPLE_TABLE[kind]} where task_id = ? and not (user_id = any(?::uuid[]))`, [taskId, pgArray(keep)]);
}

export interface PersonRow {
  id: string;
  email: string;
  name: string;
  status: string;
}

/** Reviewers or cc of a task with their users, in the order they were added. */
export async function taskPeople(em: EntityManager, kind: TaskPeopleKind, taskId: string): Promise<PersonRow[]> {
  return run<PersonRow>(
    em,
    `select u.id, u.email, u.name, u.status from ${PEOPLE_TABLE[kind]} x join users u on u.id = x.user_id where x.task_id = ? order by x.position`,
    [taskId],
  );
}

export async function isReviewer(em: EntityManager, taskId: string, userId: string): Promise<boolean> {
  const rows = await run(em, `select 1 from task_reviewers where task_id = ? and user_id = ?`, [taskId, userId]);
  return rows.length > 0;
}

/** Users by id or email (lower-cased emails); unknown ones are simply absent. */
export async function usersByIdsOrEmails(em: EntityManager, ids: readonly string[], emails: readonly string[]): Promise<PersonRow[]> {
  if (ids.length === 0 && emails.length === 0) return [];
  return run<PersonRow>(em, `select id, email, name, status from users where id = any(?::uuid[]) or email = any(?::text[])`, [pgArray(ids), pgArray(emails)]);
}

export async function userById(em: EntityManager, id: string): Promise<PersonRow | undefined> {
  return (await run<PersonRow>(em, `select id, email, name, status from users where id = ?`, [id]))[0];
}

export async function userByEmail(em: EntityManager, email: string): Promise<PersonRow | undefined> {
  return (await run<PersonRow>(em, `select id, email, name, status from users where email = ?`, [email.trim().toLowerCase()]))[0];
}

/**
 * Ancestor ids from `parentId` upwards (parent first). Reads at most MAX_TASK_DEPTH + 1 rows, so
 * a corrupt cycle in stored data terminates and is reported by checkParentChain.
 */
export async function ancestorIds(em: EntityManager, parentId: string): Promise<string[]> {
  const rows = await run<{ id: string }>(
    em,
    `with recursive chain (id, parent_task_id, depth) as (
       select id, parent_task_id, 1 from tasks where id = ?
       union all
       select t.id, t.parent_task_id, c.depth + 1 from tasks t join chain c on t.id = c.parent_task_id where c.depth <= ?
     )
     select id from chain order by depth`,
    [parentId, MAX_TASK_DEPTH],
  );
  return rows.map((r) => r.id);
}

export async function insertComment(em: EntityManager, c: { taskId: string; authorUserId: string; body: string; now: Date }): Promise<string> {
  const id = randomUUID();
  await run(em, `insert into task_comments (id, task_id, author_user_id, body, created_at) values (?, ?, ?, ?, ?::timestamptz)`, [
    id,
    c.taskId,
    c.authorUserId,
    c.body,
    c.now.toISOString(),
  ]);
  return id;
}

export async function insertStatusHistory(
  em: EntityManager,
  h: { taskId: string; from: TaskStatus | null; to: TaskStatus; byUserId: string; commentId: string | null; now: Date },
): Promise<void> {
  await run(
    em,
    `insert into task_status_history (id, task_id, from_status, to_status, changed_by_user_id, comment_id, created_at) values (?, ?, ?, ?, ?, ?, ?::timestamptz)`,
    [randomUUID(), h.taskId, h.from, h.to, h.byUserId, h.commentId, h.now.toISOString()],
  );
}

export async function setTaskStatus(em: EntityManager, taskId: string, to: TaskStatus, now: Date): Promise<void> {
  await run(em, `update tasks set status = ?, updated_at = ?::timestamptz where id = ?`, [to, now.toISOString(), taskId]);
}

/** Claims an unassigned task; false when someone else got it first. */
export async function claimUnassigned(em: EntityManager, taskId: string, userId: string, now: Date): Promise<boolean> {
  const rows = await run(em, `update tasks set assignee_user_id = ?, updated_at = ?::timestamptz where id = ? and assignee_user_id is null returning id`, [
    userId,
    now.toISOString(),
    taskId,
  ]);
  return rows.length > 0;
}

export async function touchTask(em: EntityManager, taskId: string, now: Date): Promise<void> {
  await run(em, `update tasks set updated_at = ?::timestamptz where id = ?`, [now.toISOString(), taskId]);
}

export interface HistoryRow {
  from: TaskStatus | null;
  to: TaskStatus;
  byId: string;
  byEmail: string;
  commentId: string | null;
  at: string;
}

export async function statusHistory(em: EntityManager, taskId: string): Promise<HistoryRow[]> {
  const rows = await run<{
    from_status: string | null;
    to_status: string;
    by_id: string;
    by_email: string;
    comment_id: string | null;
    created_at: Date | string;
  }>(
    em,
    `select h.from_status, h.to_status, u.id as by_id, u.email as by_email, h.comment_id, h.created_at
       from task_status_history h join users u on u.id = h.changed_by_user_id
      where h.task_id = ? order by h.created_at, h.id`,
    [taskId],
  );
  return rows.map((r) => ({
    from: r.from_status as TaskStatus | null,
    to: r.to_status as TaskStatus,
    byId: r.by_id,
    byEmail: r.by_email,
    commentId: r.comment_id,
    at: iso(r.created_at)!,
  }));
}

export interface CommentRow {
  id: string;
  authorId: string;
  authorEmail: string;
  body: string;
  createdAt: string;
}

/** The newest `limit` comments, returned oldest first, and the total count. */
export async function recentComments(em: EntityManager, taskId: string, limit: number): Promise<{ total: number; items: CommentRow[] }> {
  const [c] = await run<{ n: string | number }>(em, `select count(*) as n from task_comments where task_id = ?`, [taskId]);
  const rows = await run<{ id: string; author_id: string; author_email: string; body: string; created_at: Date | string }>(
    em,
    `select c.id, u.id as author_id, u.email as author_email, c.body, c.created_at
       from task_comments c join users u on u.id = c.author_user_id
      where c.task_id = ? order by c.created_at desc, c.id desc limit ?`,
    [taskId, limit],
  );
  return {
    total: Number(c?.n ?? 0),
    items: rows.reverse().map((r) => ({ id: r.id, authorId: r.author_id, authorEmail: r.author_email, body: r.body, createdAt: iso(r.created_at)! })),
  };
}

export interface TaskListFilter {
  viewerId: string;
  /** Admins, super admins, coordinators: every active project. */
  allProjects: boolean;
  assigneeUserId?: string;
  projectSlug?: string;
  status?: TaskStatus;
  priority?: TaskPriority;
  limit: number;
}

export interface TaskListRow extends TaskRow {
  projectSlug: string;
  assigneeEmail: string | null;
}

/**
 * Published tasks in projects the viewer may see, newest first. The visibility predicate is part
 * of the statement (never a filter after loading): the viewer's member rows
 * (project_members_user_id_index) plus projects they own (projects_owner_user_id_index), then
 * tasks_project_id_created_at_index / tasks_assignee_user_id_created_at_index. The project ids are
 * one array value (`= any(array(...))`): the newest-first walk tests each task against it, where
 * `in (select ...)` was planned as a join filter comparing every task with every project
 * (bench:work, member of 20 of 200 projects: 1.1 -> 0.38 ms execution).
 */
export async function listVisibleTasks(em: EntityManager, f: TaskListFilter): Promise<TaskListRow[]> {
  const where: string[] = ['not t.is_draft', 'p.archived_at is null'];
  const params: unknown[] = [];
  if (!f.allProjects) {
    where.push(
      `t.project_id = any(array(select m.project_id from project_members m where m.user_id = ? union all select o.id from projects o where o.owner_user_id = ?))`,
    );
    params.push(f.viewerId, f.viewerId);
  }
  if (f.assigneeUserId) {
    where.push('t.assignee_user_id = ?');
    params.push(f.assigneeUserId);
  }
  if (f.projectSlug) {
    where.push('p.slug = ?');
    params.push(f.projectSlug.toLowerCase());
  }
  if (f.status) {
    where.push('t.status = ?');
    params.push(f.status);
  }
  if (f.priority) {
    where.push('t.priority = ?');
    params.push(f.priority);
  }
  params.push(f.limit);
  const rows = await run<RawTask & { project_slug: string; assignee_email: string | null }>(
    em,
    // The page of ids first, then its joins: joining the parent task before the limit made the
    // planner hash the whole tasks table (bench:work, 100,000 tasks).
    `select ${TASK_COLUMNS}, p.slug as project_slug, a.email as assignee_email
       from (select t.id from tasks t join projects p on p.id = t.project_id
              where ${where.join(' and ')}
              order by t.created_at desc, t.id desc
              limit ?) page
       join tasks t on t.id = page.id
       join projects p on p.id = t.project_id
       left join tasks pt on pt.id = t.parent_task_id
       left join users a on a.id = t.assignee_user_id
      order by t.created_at desc, t.id desc`,
    params,
  );
  return rows.map((r) => ({ ...toTask(r), projectSlug: r.project_slug, assigneeEmail: r.assignee_email }));
}
