// Named statements of triage: done, back to the Inbox, snooze, the wake of due snoozes, and done on
// resolution. Each caller-facing one filters on the owner in SQL (`user_id = ?`): another user's id
// changes nothing. The state's
// invariants (a CHECK on notifications) hold in every statement: `done` has done_at, `snoozed` has
// snoozed_until, `inbox` neither. The inbox counters follow through their triggers.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { PREPARED, pgArray } from '../sql-hints.js';
import { nudgeChannelSql, PARKED_OUTBOX_LEASE } from '../nudges/nudges.repository.js';
import { deliveryOf } from './inbox-view.repository.js';

/** How many of these ids are the caller's rows (the rest: unknown or another user's). Locks them for the change that follows. */
export async function countOwnRows(em: EntityManager, userId: string, ids: readonly string[]): Promise<number> {
  const rows = await run<{ n: number }>(
    em,
    `${PREPARED} select count(*)::int as n from (select id from notifications where id = any(?::uuid[]) and user_id = ? order by id for update) x`,
    [pgArray(ids), userId],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Moves the caller's rows among `ids` to Done (read too); the ids it changed. */
export async function markOwnRowsDone(em: EntityManager, userId: string, ids: readonly string[], now: Date): Promise<string[]> {
  const at = now.toISOString();
  const rows = await run<{ id: string }>(
    em,
    `${PREPARED} update notifications set state = 'done', done_at = ?::timestamptz, snoozed_until = null,
       read_at = coalesce(read_at, ?::timestamptz), updated_at = ?::timestamptz
     where id = any(?::uuid[]) and user_id = ? and state <> 'done' returning id`,
    [at, at, at, pgArray(ids), userId],
  );
  return rows.map((r) => r.id);
}

/** Moves the caller's done or snoozed rows among `ids` back to the Inbox, at their old place; the ids it changed. */
export async function moveOwnRowsToInbox(em: EntityManager, userId: string, ids: readonly string[], now: Date): Promise<string[]> {
  const rows = await run<{ id: string }>(
    em,
    `${PREPARED} update notifications set state = 'inbox', done_at = null, snoozed_until = null, updated_at = ?::timestamptz
     where id = any(?::uuid[]) and user_id = ? and state <> 'inbox' returning id`,
    [now.toISOString(), pgArray(ids), userId],
  );
  return rows.map((r) => r.id);
}

/** Snoozes one of the caller's rows until `until` (a snoozed row gets the new time, a done one leaves Done); false when not the caller's. */
export async function snoozeOwnRow(em: EntityManager, userId: string, id: string, until: Date, now: Date): Promise<boolean> {
  const rows = await run<{ id: string }>(
    em,
    `${PREPARED} update notifications set state = 'snoozed', snoozed_until = ?::timestamptz, done_at = null, updated_at = ?::timestamptz
     where id = ? and user_id = ? returning id`,
    [until.toISOString(), now.toISOString(), id, userId],
  );
  return rows.length > 0;
}

/**
 * Done on resolution (the resolve call; the publish statements do it for repeats): the inbox row of
 * `deliveryId` moves to Done, read, when its owner turned done_on_resolution on; a row already done
 * stays as it is. The ids it changed.
 */
export async function markResolvedRowDone(em: EntityManager, deliveryId: string, now: Date): Promise<string[]> {
  const at = now.toISOString();
  const rows = await run<{ id: string }>(
    em,
    `${PREPARED} update notifications n set state = 'done', done_at = ?::timestamptz, snoozed_until = null,
       read_at = coalesce(n.read_at, ?::timestamptz), updated_at = ?::timestamptz
     where n.delivery_id = ? and n.state <> 'done'
       and exists (select 1 from nudge_preferences p where p.user_id = n.user_id and p.done_on_resolution)
     returning n.id`,
    [at, at, at, deliveryId],
  );
  return rows.map((r) => r.id);
}

export interface WokenRow {
  id: string;
  user_id: string;
}

const WAKE_NUDGE = nudgeChannelSql('w.user_id', 'd.severity', 'w.at');

/**
 * Brings up to `limit` due snoozes back to the Inbox, at the top and unread, and queues their
 * nudges (outbox rows, reason `snooze`, per the owner's preferences; rows that are not events
 * have no delivery to announce; parked, see PARKED_OUTBOX_LEASE) in the SAME statement; inside the owner's quiet hours a nudge
 * below critical is held for the summary instead (nudge_held). Rows are taken `for update skip
 * locked` and the update re-checks the state: several processes running this at once wake each
 * row once.
 */
export async function wakeDueSnoozes(em: EntityManager, now: Date, limit: number): Promise<WokenRow[]> {
  const at = now.toISOString();
  return run<WokenRow>(
    em,
    `${PREPARED} with due as (
  select id from notifications where state = 'snoozed' and snoozed_until <= ?::timestamptz
  order by snoozed_until limit ?::int for update skip locked
), w as (
  update notifications n set state = 'inbox', snoozed_until = null, listed_at = ?::timestamptz, read_at = null, updated_at = ?::timestamptz
  from due where n.id = due.id and n.state = 'snoozed'
  returning n.id, n.user_id, n.delivery_id, n.created_at, n.updated_at as at
), nc as (
  select w.delivery_id, w.user_id, d.severity, w.at, ch.channel, ${WAKE_NUDGE.held} as held
  from w join deliveries d on ${deliveryOf('w', 'd')}
  ${WAKE_NUDGE.joins}
  where ${WAKE_NUDGE.where}
), o as (
  insert into nudge_outbox (id, delivery_id, user_id, channel, created_at, reason, lease_until)
  select gen_random_uuid(), nc.delivery_id, nc.user_id, nc.channel, nc.at, 'snooze', ${PARKED_OUTBOX_LEASE} from nc where not nc.held
), qh as (
  insert into nudge_held (user_id, delivery_id, severity, held_at)
  select distinct nc.user_id, nc.delivery_id, nc.severity, nc.at from nc where nc.held
)
select id, user_id from w`,
    [at, limit, at, at],
  );
}
