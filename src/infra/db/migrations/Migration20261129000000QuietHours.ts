import { Migration } from '@mikro-orm/migrations';

// Quiet hours, nudge thresholds per token and done on resolution (README "Nudges"; docs/contract.md
// "Quiet hours and thresholds"). Backward compatible with the previous release:
//  - Every new column is nullable or carries a constant default: nothing is rewritten, whatever a
//    table's size, and the previous release keeps writing rows (they take the defaults: no quiet
//    hours, threshold `all`, done on resolution off). Its preference upsert names its own columns
//    only, so it keeps the new ones.
//  - The checks are added NOT VALID and validated after (no lock that stops writers).
//  - nudge_held is new: the nudges the publish and wake statements held back during quiet hours,
//    one row per held delivery, until the summary task sums them up into one nudge per user and
//    deletes them. Like nudge_outbox it has no foreign keys (written by the publish statement).
//  - A summary nudge is an outbox row of reason `summary`: its delivery_id is the summary's own id
//    (no delivery; the idempotency id and the push topic are made from it) and `summary` holds the
//    held counts per severity. A previous-release process that claimed one would find no delivery
//    and settle it unsent: such rows are parked where its claim never looks
//    (Migration20261201200000OutboxParked).
const STATEMENTS = [
  `alter table "nudge_preferences" add column "quiet_start" time null, add column "quiet_end" time null,
     add column "quiet_tz" varchar(64) null, add column "quiet_days" smallint[] null,
     add column "done_on_resolution" boolean not null default false`,
  `alter table "nudge_preferences" add constraint "nudge_preferences_quiet_check" check (
     (quiet_tz is null) = (quiet_start is null) and (quiet_tz is null) = (quiet_end is null) and (quiet_tz is null) = (quiet_days is null)) not valid`,
  `alter table "nudge_preferences" validate constraint "nudge_preferences_quiet_check"`,

  `alter table "inbound_tokens" add column "nudge_threshold" varchar(8) not null default 'all'`,
  `alter table "inbound_tokens" add constraint "inbound_tokens_nudge_threshold_check" check (nudge_threshold in ('all', 'warn', 'critical', 'never')) not valid`,
  `alter table "inbound_tokens" validate constraint "inbound_tokens_nudge_threshold_check"`,

  `create table "nudge_held" ("user_id" uuid not null, "delivery_id" uuid not null, "severity" varchar(10) not null, "held_at" timestamptz not null)
     with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000)`,
  `create index "nudge_held_user_id_index" on "nudge_held" ("user_id")`,

  `alter table "nudge_outbox" add column "summary" jsonb null`,
];

export class Migration20261129000000QuietHours extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
