// Named inbox queries. Every statement filters on the owner in SQL (`user_id = ?`): a caller can
// never see, count or change another user's rows, whatever id it sends. Lists walk the
// notifications(user_id, created_at, id) index backwards; counts come from inbox_counters.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { PREPARED } from '../sql-hints.js';

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

const exec = run;

const COLUMNS = `n.id, n.type, n.title, n.summary, n.body, n.delivery_id, n.target_url, n.tags, n.read_at, n.created_at,
  n.updated_at, n.actor_user_id, u.email as actor_email, u.name as actor_name`;

/** What a list item shows (notification.view InboxItem): no body, tags or delivery id to fetch and parse. */
export type InboxListRow = Pick<
  NotificationRow,
  'id' | 'type' | 'title' | 'summary' | 'target_url' | 'read_at' | 'created_at' | 'actor_user_id' | 'actor_email' | 'actor_name'
>;
const LIST_COLUMNS = `n.id, n.type, n.title, n.summary, n.target_url, n.read_at, n.created_at, n.actor_user_id,
  u.email as actor_email, u.name as actor_name`;

export interface InboxPage {
  total: number;
  unread: number;
  rows: InboxListRow[];
}

/**
 * Counts and the newest `limit` rows in ONE statement (one snapshot: the counts and the page
 * agree). Counts come from inbox_counters (kept exact by triggers on notifications, see
 * Migration20261122120000InboxCounters): at most 4 rows read whatever the inbox size; with
 * unreadOnly every matching row is unread, so total = unread. Items walk the (user_id,
 * created_at, id) index backwards (unreadOnly filters read rows out) and stop at the number of
 * matching rows (the counters and the rows are one snapshot, so a type with no rows scans nothing
 * and a rare type stops at its last row). One fixed SQL text per filter combination (never
 * built from input), each a prepared statement with its own plan.
 */
export function inboxPageSql(byType: boolean, unreadOnly: boolean): string {
  const typeCounter = byType ? ' and type = ?' : '';
  const typeRow = byType ? ' and n.type = ?' : '';
  const unreadRow = unreadOnly ? ' and n.read_at is null' : '';
  const total = unreadOnly ? 'unread' : 'total';
  return `${PREPARED} with c as (
  select coalesce(sum(${total}), 0)::int as total_count, coalesce(sum(unread), 0)::int as unread_count
  from inbox_counters where user_id = ?${typeCounter}
)
select c.total_count, c.unread_count, i.* from c left join lateral (
  select ${LIST_COLUMNS} from notifications n left join users u on u.id = n.actor_user_id
  where n.user_id = ?${typeRow}${unreadRow}
  order by n.created_at desc, n.id desc limit least(?::int, c.total_count)
) i on true
order by i.created_at desc, i.id desc`;
}
const PAGE_SQL: ReadonlyMap<string, string> = new Map([false, true].flatMap((t) => [false, true].map((u) => [`${t}:${u}`, inboxPageSql(t, u)] as const)));

/** Newest first; ties broken by id so pages are stable. */
export async function listInboxWithCounts(em: EntityManager, f: InboxFilter, limit: number): Promise<InboxPage> {
  const byType = f.type !== undefined;
  const unreadOnly = f.unreadOnly === true;
  const params: unknown[] = byType ? [f.userId, f.type, f.userId, f.type, limit] : [f.userId, f.userId, limit];
  const rows = await exec<InboxListRow & { total_count: number; unread_count: number }>(em, PAGE_SQL.get(`${byType}:${unreadOnly}`)!, params);
  const first = rows[0];
  return {
    total: Number(first?.total_count ?? 0),
    unread: Number(first?.unread_count ?? 0),
    // An empty page is one row of counts with null item columns (left join).
    rows: rows.filter((r) => r.id !== null),
  };
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

/** Marks every unread row of the user read; the ids it changed. */
export async function markAllOwnNotificationsRead(em: EntityManager, userId: string, now: Date): Promise<string[]> {
  const rows = await exec<{ id: string }>(
    em,
    `update notifications set read_at = ?::timestamptz, updated_at = ?::timestamptz where user_id = ? and read_at is null returning id`,
    [now.toISOString(), now.toISOString(), userId],
  );
  return rows.map((r) => r.id);
}
