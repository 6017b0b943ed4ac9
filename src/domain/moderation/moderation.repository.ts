// Named queries for the hold-for-forwarding queue (table moderation_queue, written by the publish
// statement in events.repository.ts for moderation tokens). Every read is scoped to the queue's
// owner (the admin owning the moderation token).
import type { EntityManager } from '@mikro-orm/core';

export interface HeldEventRow {
  id: string;
  delivery_id: string;
  token_id: string;
  token_label: string;
  admin_user_id: string;
  status: 'pending' | 'forwarded' | 'dismissed';
  title: string;
  summary: string | null;
  body: string | null;
  edited_at: Date | string | null;
  forwarded_to_user_id: string | null;
  forwarded_to_email: string | null;
  forwarded_at: Date | string | null;
  notification_id: string | null;
  dismissed_at: Date | string | null;
  dismiss_reason: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  event_id: string;
  event_type: string;
  severity: string;
  external_url: string | null;
  external_status: string | null;
  recipient: { type: string; value: string } | null;
  recipient_hint: { email?: string; user_id?: string; display_hint?: string } | null;
  fire_count: number;
  occurred_at: Date | string;
}

const SELECT = `select q.id, q.delivery_id, q.token_id, t.label as token_label, q.admin_user_id, q.status, q.title, q.summary, q.body,
       q.edited_at, q.forwarded_to_user_id, fu.email as forwarded_to_email, q.forwarded_at, q.notification_id, q.dismissed_at,
       q.dismiss_reason, q.created_at, q.updated_at, d.event_id, d.event_type, d.severity, d.external_url, d.external_status,
       d.recipient, d.recipient_hint, d.fire_count, d.occurred_at
  from moderation_queue q
  join deliveries d on d.id = q.delivery_id
  join inbound_tokens t on t.id = q.token_id
  left join users fu on fu.id = q.forwarded_to_user_id`;

export async function listHeldEvents(em: EntityManager, adminUserId: string, status: string | null, limit: number): Promise<HeldEventRow[]> {
  return (await em
    .getConnection()
    .execute(
      `${SELECT} where q.admin_user_id = ? and (?::varchar is null or q.status = ?) order by q.created_at desc, q.id limit ?`,
      [adminUserId, status, status, limit],
      'all',
      em.getTransactionContext(),
    )) as HeldEventRow[];
}

/** One entry of the admin's queue (locked for the rest of the transaction when `lock`). */
export async function findHeldEvent(em: EntityManager, adminUserId: string, id: string, lock = false): Promise<HeldEventRow | undefined> {
  const rows = (await em
    .getConnection()
    .execute(
      `${SELECT} where q.id = ? and q.admin_user_id = ?${lock ? ' for update of q' : ''}`,
      [id, adminUserId],
      'all',
      em.getTransactionContext(),
    )) as HeldEventRow[];
  return rows[0];
}

export async function updateHeldEvent(em: EntityManager, id: string, set: Record<string, unknown>): Promise<void> {
  const cols = Object.keys(set);
  await em
    .getConnection()
    .execute(
      `update moderation_queue set ${cols.map((c) => `"${c}" = ?`).join(', ')} where id = ?`,
      [...cols.map((c) => set[c]), id],
      'run',
      em.getTransactionContext(),
    );
}
