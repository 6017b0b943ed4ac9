// Named inbox queries. Every statement filters on the owner in SQL (`user_id = ?`): a caller can
// never see, count or change another user's rows, whatever id it sends. Lists walk the
// notifications(user_id, created_at) index backwards.
import type { EntityManager } from '@mikro-orm/core';

export type NotificationType = 'task' | 'review' | 'meeting' | 'system';

export interface InboxFilter {
  userId: string;
  type?: NotificationType;
  unreadOnly?: boolean;
}

export interface NotificationRow {
  id: string;
  type: string;
  title: string;
  summary: string | null;
  body: string | null;
  delivery_id: string | null;
  target_url: string | null;
  tags: string[] | null;
  read_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  actor_user_id: string | null;
  actor_email: string | null;
  actor_name: string | null;
}

const exec = <T>(em: EntityManager, sql: string, params: unknown[]) =>
  em.getConnection().execute(sql, params, 'all', em.getTransactionContext()) as Promise<T[]>;

// One text per statement: optional filters are NULL-guarded parameters, never concatenated SQL.
const FILTER = `n.user_id = ? and (?::varchar is null or n.type = ?) and (not ?::boolean or n.read_at is null)`;
const filterParams = (f: InboxFilter) => [f.userId, f.type ?? null, f.type ?? null, f.unreadOnly === true];

export async function countInbox(em: EntityManager, f: InboxFilter): Promise<{ total: number; unread: number }> {
  const rows = await exec<{ total: string | number; unread: string | number }>(
    em,
    `select count(*) as total, count(*) filter (where n.read_at is null) as unread from notifications n where ${FILTER}`,
    filterParams(f),
  );
  return { total: Number(rows[0]?.total ?? 0), unread: Number(rows[0]?.unread ?? 0) };
}

const COLUMNS = `n.id, n.type, n.title, n.summary, n.body, n.delivery_id, n.target_url, n.tags, n.read_at, n.created_at,
  n.updated_at, n.actor_user_id, u.email as actor_email, u.name as actor_name`;

/** Newest first; ties broken by id so pages are stable. */
export async function listInboxPage(em: EntityManager, f: InboxFilter, limit: number): Promise<NotificationRow[]> {
  return exec<NotificationRow>(
    em,
    `select ${COLUMNS} from notifications n left join users u on u.id = n.actor_user_id
      where ${FILTER} order by n.created_at desc, n.id desc limit ?`,
    [...filterParams(f), limit],
  );
}

export async function findOwnNotification(em: EntityManager, userId: string, id: string): Promise<NotificationRow | undefined> {
  const rows = await exec<NotificationRow>(
    em,
    `select ${COLUMNS} from notifications n left join users u on u.id = n.actor_user_id where n.id = ? and n.user_id = ?`,
    [id, userId],
  );
  return rows[0];
}

/** 'updated' when this call set read_at; 'already_read' when it was set before; 'absent' when not the caller's. */
export async function markOwnNotificationRead(em: EntityManager, userId: string, id: string, now: Date): Promise<'updated' | 'already_read' | 'absent'> {
  const rows = await exec<{ updated: boolean }>(
    em,
    `with t as (select id, read_at from notifications where id = ? and user_id = ? for update),
          u as (update notifications n set read_at = ?::timestamptz, updated_at = ?::timestamptz
                 from t where n.id = t.id and t.read_at is null returning n.id)
     select (select count(*) from u) > 0 as updated from t`,
    [id, userId, now.toISOString(), now.toISOString()],
  );
  if (rows.length === 0) return 'absent';
  return rows[0]!.updated ? 'updated' : 'already_read';
}

export async function markAllOwnNotificationsRead(em: EntityManager, userId: string, now: Date): Promise<number> {
  const rows = await exec<{ id: string }>(
    em,
    `update notifications set read_at = ?::timestamptz, updated_at = ?::timestamptz where user_id = ? and read_at is null returning id`,
    [now.toISOString(), now.toISOString(), userId],
  );
  return rows.length;
}
