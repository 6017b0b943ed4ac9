// Named queries of one notification (the agent tools' get and mark read, mark all read). Every
// statement filters on the owner in SQL (`user_id = ?`): a caller can never see, count or change
// another user's rows, whatever id it sends. Lists are in inbox-view.repository.ts.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { PREPARED, pgArray } from '../sql-hints.js';
import type { ItemState } from './inbox.limits.js';
import { deliveryOf } from './inbox-view.repository.js';

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
  state: ItemState;
  snoozed_until: Date | string | null;
  done_at: Date | string | null;
  token_id: string | null;
  event_type: string | null;
  severity: string | null;
  external_status: string | null;
  fire_count: number | null;
}

const exec = run;

const COLUMNS = `n.id, n.type, n.title, n.summary, n.body, n.delivery_id, n.target_url, n.tags, n.read_at, n.created_at,
  n.updated_at, n.actor_user_id, u.email as actor_email, u.name as actor_name, n.state, n.snoozed_until, n.done_at,
  d.token_id, d.event_type, d.severity, d.external_status, d.fire_count`;

export async function findOwnNotification(em: EntityManager, userId: string, id: string): Promise<NotificationRow | undefined> {
  const rows = await exec<NotificationRow>(
    em,
    `select ${COLUMNS} from notifications n left join users u on u.id = n.actor_user_id left join deliveries d on ${deliveryOf('n', 'd')}
     where n.id = ? and n.user_id = ?`,
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

/** Marks the caller's read rows among `ids` unread (any state); the ids it changed. */
export async function markOwnRowsUnread(em: EntityManager, userId: string, ids: readonly string[], now: Date): Promise<string[]> {
  const rows = await exec<{ id: string }>(
    em,
    `${PREPARED} update notifications set read_at = null, updated_at = ?::timestamptz
     where id = any(?::uuid[]) and user_id = ? and read_at is not null returning id`,
    [now.toISOString(), pgArray(ids), userId],
  );
  return rows.map((r) => r.id);
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
