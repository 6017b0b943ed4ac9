import { Migration } from '@mikro-orm/migrations';
import { addMonths, createPartitionSql, monthStart } from '../partitions.js';

// audit_log becomes partitioned by month on created_at (docs/scaling.md section 4). Primary key
// (id, created_at); its one index (token_id, created_at) already ends in the key (the
// (actor_user_id, ...) and (action, ...) ones were dropped by Migration20261124000000AuditIndexes).
//
// Empty table (a fresh database, every test): replaced at once, in this migration.
// Rows present (a live installation, the previous release still writing): this migration only
// starts a live in-place conversion and holds no long lock: it creates the partitioned copy
// `audit_log_p` with partitions from the oldest row's month to two months ahead, a statement
// trigger mirroring every insert of `audit_log` into it (audit rows are only ever inserted), and
// the progress row in `partition_conversions`. The batched backfill, the swap (two renames in
// one short transaction) and the drop of the old table are the `partitions.convert` job's
// (infra/db/partition-conversion.ts).

const COLUMNS = `"id" uuid not null, "action" varchar(60) not null, "source" varchar(20) not null, "actor_user_id" uuid null, "token_id" uuid null, "target_type" varchar(40) null, "target_id" varchar(120) null, "request_id" varchar(130) null, "summary" jsonb null, "created_at" timestamptz not null`;
const COLUMN_LIST = `"id", "action", "source", "actor_user_id", "token_id", "target_type", "target_id", "request_id", "summary", "created_at"`;

const partitionedTable = (name: string) => [
  `create table "${name}" (${COLUMNS}, constraint "${name}_pkey" primary key ("id", "created_at")) partition by range ("created_at")`,
  `create index "${name}_token_id_created_at_index" on "${name}" ("token_id", "created_at")`,
];

const PROGRESS_TABLE = `create table "partition_conversions" ("table_name" text not null primary key, "next_block" bigint not null default 0, "end_block" bigint not null default 0, "rows_copied" bigint not null default 0, "started_at" timestamptz not null default now(), "backfilled_at" timestamptz null, "swapped_at" timestamptz null, "legacy_dropped_at" timestamptz null)`;

/** The partitions of [from's month, now's month + 2]. */
function months(from: Date, now: Date): Date[] {
  const out: Date[] = [];
  for (let m = monthStart(from); m <= addMonths(monthStart(now), 2); m = addMonths(m, 1)) out.push(m);
  return out;
}

export class Migration20261201300000AuditLogPartitions extends Migration {
  override async up(): Promise<void> {
    const now = new Date();
    await this.execute(PROGRESS_TABLE);
    const hasRows = async () => ((await this.execute(`select exists (select 1 from "audit_log") as has`)) as { has: boolean }[])[0]!.has;
    if (!(await hasRows())) {
      // Waits only for writers in flight (a fresh database has none); re-checked under the lock.
      await this.execute(`lock table "audit_log" in access exclusive mode`);
      if (!(await hasRows())) {
        await this.execute(`drop table "audit_log"`);
        for (const s of partitionedTable('audit_log')) await this.execute(s);
        for (const m of months(now, now)) await this.execute(createPartitionSql('audit_log', 'audit_log', m));
        return;
      }
    }
    for (const s of partitionedTable('audit_log_p')) await this.execute(s);
    // The oldest month, cheaply: rows are appended in time order and never updated, so the first
    // heap blocks hold the oldest; a row older still gets its month from the backfill.
    const oldest = (
      (await this.execute(`select min("created_at") as oldest from "audit_log" where ctid < '(100,0)'::tid`)) as { oldest: Date | string | null }[]
    )[0]!.oldest;
    for (const m of months(oldest ? new Date(oldest) : now, now)) await this.execute(createPartitionSql('audit_log', 'audit_log_p', m));
    await this.execute(`create function "audit_log_mirror"() returns trigger language plpgsql as $$
      begin
        insert into "audit_log_p" (${COLUMN_LIST}) select ${COLUMN_LIST} from new_rows on conflict do nothing;
        return null;
      end $$`);
    // CREATE TRIGGER waits for the inserts in flight and holds back new ones until this commits:
    // bounded, so a long transaction on audit_log fails the migration (and the start) instead of
    // stalling every writer behind it.
    const saved = ((await this.execute(`select current_setting('lock_timeout') as v`)) as { v: string }[])[0]!.v;
    await this.execute(`select set_config('lock_timeout', '5s', true)`);
    await this.execute(
      `create trigger "audit_log_mirror" after insert on "audit_log" referencing new table as new_rows for each statement execute function "audit_log_mirror"()`,
    );
    // Every row inserted before the trigger lies below this block (the trigger's lock is held until
    // commit, and rows are never updated); the ones inserted after are mirrored.
    await this.execute(
      `insert into "partition_conversions" ("table_name", "next_block", "end_block")
       values ('audit_log', 0, pg_relation_size('"audit_log"') / current_setting('block_size')::bigint)`,
    );
    await this.execute(`select set_config('lock_timeout', ?, true)`, [saved]);
  }
}
