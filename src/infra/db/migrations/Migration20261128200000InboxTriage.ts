import { Migration } from '@mikro-orm/migrations';

// Triage state per inbox row: `inbox`, `snoozed` (until snoozed_until) or `done` (since done_at),
// and the row's place in the list (listed_at: a woken snooze returns to the top; NULL = created_at).
//  - New columns are nullable or carry a constant default: adding them rewrites nothing, whatever
//    the table's size, and the previous release keeps writing rows (they take the defaults).
//  - The state's invariants are a CHECK added NOT VALID and validated after (the validation takes
//    no lock that stops writers).
//  - inbox_counters gains the state: one row per (user, type, state); the triggers keep it exact.
//    The previous release sums every state of a user, which reads as the All view: still exact.
//  - Lists walk (user_id, state, coalesce(listed_at, created_at), id) backwards: each view is one
//    index range, All a merge of three. The previous release's list index (user_id, created_at,
//    id) stays while both run (its inbox page walks it: 92 ms on a 200,000-row inbox without it,
//    docs/migrations.md); the next release drops it. The wake job finds due snoozes through a
//    partial index.
const DELTA_UPSERT = (source: string) => `
  insert into inbox_counters as c (user_id, type, state, total, unread)
  select d.user_id, d.type, d.state, sum(d.dt)::int, sum(d.du)::int from (${source}) d
  group by d.user_id, d.type, d.state
  having sum(d.dt) <> 0 or sum(d.du) <> 0
  order by d.user_id, d.type, d.state
  on conflict (user_id, type, state) do update set total = c.total + excluded.total, unread = c.unread + excluded.unread`;

const NEW_ROWS = `select user_id, type, state, 1 as dt, case when read_at is null then 1 else 0 end as du from inbox_new_rows`;
const OLD_ROWS = `select user_id, type, state, -1 as dt, case when read_at is null then -1 else 0 end as du from inbox_old_rows`;

const STATEMENTS = [
  `alter table "notifications" add column "state" varchar(8) not null default 'inbox', add column "snoozed_until" timestamptz null,
     add column "done_at" timestamptz null, add column "listed_at" timestamptz null`,
  `alter table "notifications" add constraint "notifications_state_check" check (
     state in ('inbox', 'snoozed', 'done') and (state = 'snoozed') = (snoozed_until is not null) and (state = 'done') = (done_at is not null)) not valid`,
  `alter table "notifications" validate constraint "notifications_state_check"`,

  `alter table "inbox_counters" add column "state" varchar(8) not null default 'inbox'`,
  `alter table "inbox_counters" drop constraint "inbox_counters_pkey"`,
  `alter table "inbox_counters" add primary key ("user_id", "type", "state")`,
  `create or replace function inbox_counters_after_insert() returns trigger language plpgsql as $$
begin
  if not exists (select from inbox_new_rows) then return null; end if;
  ${DELTA_UPSERT(NEW_ROWS)};
  return null;
end $$`,
  `create or replace function inbox_counters_after_update() returns trigger language plpgsql as $$
begin
  if not exists (select from inbox_old_rows) then return null; end if;
  ${DELTA_UPSERT(`${NEW_ROWS} union all ${OLD_ROWS}`)};
  return null;
end $$`,
  `create or replace function inbox_counters_after_delete() returns trigger language plpgsql as $$
begin
  if not exists (select from inbox_old_rows) then return null; end if;
  ${DELTA_UPSERT(OLD_ROWS)};
  return null;
end $$`,

  `create index "notifications_user_state_listed_index" on "notifications" ("user_id", "state", (coalesce("listed_at", "created_at")), "id")`,
  `create index "notifications_snoozed_until_index" on "notifications" ("snoozed_until") where "state" = 'snoozed'`,

  // A nudge's reason: `event` (an arrival) or `snooze` (a snoozed row came back); the idempotency
  // id a receiver sees differs per reason and wake. The previous release reads no reason: its claim
  // would send a `snooze` row as an arrival, so such rows are parked where it never looks
  // (Migration20261201200000OutboxParked).
  `alter table "nudge_outbox" add column "reason" varchar(8) not null default 'event'`,
];

export class Migration20261128200000InboxTriage extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
