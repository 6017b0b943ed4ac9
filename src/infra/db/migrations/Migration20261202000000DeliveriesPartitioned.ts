import { Migration } from '@mikro-orm/migrations';
import { PARTITION_LEGACY_DDL, type Sql, shortDdl, sqlOn } from '../partition-in-place.js';
import { addMonths, createPartitionSql, legacyRangeBound, monthStart } from '../partitions.js';

// `deliveries` becomes partitioned by month on created_at (docs/scaling.md section 4.3), without
// copying a row. A POST-DEPLOY migration (index.ts POST_DEPLOY_MIGRATIONS): it runs once every
// node runs this release, whose publish path decides dedup in delivery_keys and never names
// deliveries' unique constraint (token_id, event_id); the previous release publishes with `on
// conflict (token_id, event_id)` on deliveries, which no partitioned table can serve.
//
// First the foreign keys into deliveries (id) are dropped, each in its own short transaction.
// Empty table (a fresh database, every test): replaced at once by the partitioned table.
// Rows present: the existing table becomes the partition `deliveries_legacy` for [MINVALUE, B),
// B the first day of the month after next (UTC), and monthly partitions start at B:
//  1. a unique index (id, created_at) built CONCURRENTLY (writes go on);
//  2. `check (created_at < B)` added NOT VALID (instant), then validated (SHARE UPDATE EXCLUSIVE:
//     writes go on). B is a month or more ahead, so no row written meanwhile breaks it; a check an
//     interrupted run left is kept only while its bound is still 31 days or more ahead, and a
//     failed swap drops it (the check binds every new row until the swap);
//  3. one short transaction: the index made the primary key, the key trigger dropped (it served the
//     previous release's writes during the rollout), the table and its indexes renamed
//     `deliveries_legacy*`, the partitioned `deliveries` created with the same columns and
//     outgoing foreign keys, primary key (id, created_at) and the three (…, created_at) indexes, and
//     the old table attached: its indexes and foreign keys are attached, not built, and the
//     validated check spares the scan. Then B's partition and the next month's.
// Each short transaction has a lock_timeout of 5 s and runs again after a lock timeout or a
// deadlock with the running service. The bound is recorded in partition_legacy (not
// partition_conversions: that one is the copying conversion's, which drops its `_legacy` table):
// the partition machinery creates no month below it, and retention drops the legacy partition
// once B is past DELIVERY_RETENTION_DAYS. Every step is idempotent: a run interrupted anywhere is
// run again and goes on.

export class Migration20261202000000DeliveriesPartitioned extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    const em = this.getEntityManager();
    const q = sqlOn(em);
    const short = <T>(work: (t: Sql) => Promise<T>) => shortDdl(em, work);
    await q(PARTITION_LEGACY_DDL);
    if ((await q(`select 1 from pg_partitioned_table where partrelid = to_regclass('"deliveries"')`)).length > 0) return;
    const now = new Date();

    // The foreign keys into deliveries (id), each alone (a key to a partitioned table must name its
    // whole primary key; retention removes the children first). Nothing of this release needs them.
    for (const fk of await q<{ table: string; name: string }>(
      `select c.conrelid::regclass::text as table, c.conname as name from pg_constraint c where c.confrelid = to_regclass('"deliveries"') and c.contype = 'f' order by 1, 2`,
    ))
      await short((t) => t(`alter table ${fk.table} drop constraint if exists "${fk.name}"`));

    const empty = await short(async (t) => {
      await t(`lock table "deliveries" in access exclusive mode`);
      if ((await t<{ has: boolean }>(`select exists (select 1 from "deliveries") as has`))[0]!.has) return false;
      for (const s of await swapSql(t, null)) await t(s);
      await t(`drop table "deliveries_legacy"`);
      for (let m = monthStart(now); m <= addMonths(monthStart(now), 2); m = addMonths(m, 1)) await t(createPartitionSql('deliveries', 'deliveries', m));
      return true;
    });
    if (empty) return;

    // 1. The unique index the partitioned primary key attaches (an invalid leftover is built again).
    const idx = await q<{ valid: boolean }>(
      `select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = 'deliveries_id_created_at_unique' and c.relnamespace = current_schema()::regnamespace`,
    );
    if (idx.length > 0 && idx[0]?.valid !== true) await q(`drop index concurrently if exists "deliveries_id_created_at_unique"`);
    await q(`create unique index concurrently if not exists "deliveries_id_created_at_unique" on "deliveries" ("id", "created_at")`);
    // 2. The range check, validated without blocking writes. The check binds new rows from the moment
    // it exists: one left by an interrupted run is kept only while its bound is a month or more
    // ahead (else it is replaced by one with a new bound), and a failed swap drops it.
    const dropCheck = () => short((t) => t(`alter table "deliveries" drop constraint if exists "deliveries_legacy_range"`));
    let legacyUntil = addMonths(monthStart(now), 2);
    const left = await legacyRangeBound(em, 'deliveries');
    if (left && left.getTime() >= now.getTime() + 31 * 86_400_000) legacyUntil = left;
    else {
      if (left) await dropCheck();
      await short((t) =>
        t(`alter table "deliveries" add constraint "deliveries_legacy_range" check ("created_at" < '${legacyUntil.toISOString()}'::timestamptz) not valid`),
      );
    }
    await q(`alter table "deliveries" validate constraint "deliveries_legacy_range"`);

    // 3. The swap, in one short transaction.
    await short(async (t) => {
      await t(`lock table "deliveries" in access exclusive mode`);
      // The index becomes the primary key (PostgreSQL 16 and later refuse to attach a table whose
      // primary key is not the parent's; nothing references deliveries (id) any more).
      await t(`alter table "deliveries" drop constraint "deliveries_pkey"`);
      await t(`alter table "deliveries" add constraint "deliveries_legacy_pkey" primary key using index "deliveries_id_created_at_unique"`);
      for (const s of await swapSql(t, legacyUntil)) await t(s);
      for (let m = legacyUntil; m <= addMonths(legacyUntil, 1); m = addMonths(m, 1)) await t(createPartitionSql('deliveries', 'deliveries', m));
      await t(`insert into "partition_legacy" ("table_name", "partition", "until") values ('deliveries', 'deliveries_legacy', '${legacyUntil.toISOString()}')`);
    }).catch(async (err: unknown) => {
      await dropCheck().catch(() => undefined);
      throw err;
    });
  }
}

/**
 * Under the table's lock: the key trigger of this release's own migrations dropped, the table and its
 * indexes renamed `deliveries_legacy*`, and the partitioned `deliveries` created with the same
 * columns and outgoing foreign keys (read from the old table), primary key (id, created_at) and
 * the three (…, created_at) indexes; with `legacyUntil`, the old table attached for [MINVALUE, it).
 */
async function swapSql(t: Sql, legacyUntil: Date | null): Promise<string[]> {
  const fks = await t<{ name: string; def: string }>(
    `select conname as name, pg_get_constraintdef(oid) as def from pg_constraint where conrelid = to_regclass('"deliveries"') and contype = 'f' order by conname`,
  );
  return [
    `drop trigger if exists "delivery_keys_sync" on "deliveries"`,
    `drop function if exists "delivery_keys_sync"()`,
    `alter table "deliveries" rename to "deliveries_legacy"`,
    ...['pkey', 'token_id_event_id_unique', 'integrator_id_created_at_index', 'event_type_created_at_index', 'token_id_created_at_index'].map(
      (name) => `alter index if exists "deliveries_${name}" rename to "deliveries_legacy_${name}"`,
    ),
    `create table "deliveries" (like "deliveries_legacy" including defaults) partition by range ("created_at")`,
    `alter table "deliveries" add constraint "deliveries_pkey" primary key ("id", "created_at")`,
    `create index "deliveries_integrator_id_created_at_index" on "deliveries" ("integrator_id", "created_at")`,
    `create index "deliveries_event_type_created_at_index" on "deliveries" ("event_type", "created_at")`,
    `create index "deliveries_token_id_created_at_index" on "deliveries" ("token_id", "created_at") include ("event_type")`,
    ...fks.map((fk) => `alter table "deliveries" add constraint "${fk.name}" ${fk.def}`),
    ...(legacyUntil ? [`alter table "deliveries" attach partition "deliveries_legacy" for values from (minvalue) to ('${legacyUntil.toISOString()}')`] : []),
  ];
}
