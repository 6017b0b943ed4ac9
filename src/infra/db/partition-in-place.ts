// Partitioning a live table by month on created_at without copying a row (docs/scaling.md sections
// 4.3 and 4.4): the existing table becomes the partition `<table>_legacy` for [MINVALUE, B), B the first day
// of the month after next (UTC), and monthly partitions start at B. Used by the post-deploy
// migrations of notifications and delivery_supplements; deliveries has its own
// (Migration20261202000000DeliveriesPartitioned: the same steps, written before this module, with
// its dedup-key trigger to drop).
//
// Steps, each idempotent (a run interrupted anywhere is run again and goes on), each DDL in one short
// transaction with a lock_timeout of 5 s, run again after a lock timeout or a deadlock with the
// running service:
//  - first, the foreign keys into the table are dropped, each in its own short transaction;
//  - empty table (a fresh database, every test): replaced at once by the partitioned table, with the
//    current month and the next two;
//  1. for each primary key or unique constraint, a unique index on its columns plus created_at, built
//     CONCURRENTLY (a partitioned table's unique index must contain the partition key; writes go on);
//  2. `check (created_at < B)` added NOT VALID, then validated (SHARE UPDATE EXCLUSIVE: writes go
//     on); a check an interrupted run left is kept only while its bound is 31 days or more ahead (it
//     binds every new row until the swap), and a failed swap drops it;
//  3. one short transaction under the table's ACCESS EXCLUSIVE lock: the constraints re-keyed on
//     the step-1 indexes, the table's own triggers dropped, identity columns turned into plain ones
//     (the parent's identity continues their sequence), the table and its indexes renamed
//     `<table>_legacy*`, the partitioned `<table>` created with the same columns, defaults, checks,
//     indexes, outgoing foreign keys and triggers (read from the catalog before the rename), and
//     the old table attached: its indexes and foreign keys are attached, not built, and the
//     validated check spares the scan (indexes the caller names are dropped instead of carried
//     over). Then B's partition and the next month's, and B recorded in
//     partition_legacy (the partition machinery creates no month below it; retention drops the
//     legacy partition once B is past the table's retention).
import type { EntityManager } from '@mikro-orm/sql';
import { addMonths, createPartitionSql, legacyRangeBound, monthStart } from './partitions.js';
import { isLockTimeout, isTransientConflict } from './sql-state.js';

export type Sql = <T = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<T[]>;

const ATTEMPTS = 10;

/** Statements on `em`'s connection, in its transaction if it has one. */
export function sqlOn(em: EntityManager): Sql {
  return async <T>(sql: string, params: unknown[] = []) => (await em.getConnection().execute(sql, params, 'all', em.getTransactionContext())) as T[];
}

/** `work` in one short transaction (lock_timeout 5 s), run again after a lock timeout or a deadlock with the running service. */
export async function shortDdl<T>(em: EntityManager, work: (t: Sql) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await em.transactional(async (tx) => {
        const t = sqlOn(tx);
        await t(`set local lock_timeout = '5s'`);
        return work(t);
      });
    } catch (err) {
      if (!(isLockTimeout(err) || isTransientConflict(err)) || attempt >= ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
}

/** `create table if not exists partition_legacy` (the tables partitioned in place, and their bound). */
export const PARTITION_LEGACY_DDL = `create table if not exists "partition_legacy" ("table_name" text not null primary key, "partition" text not null, "until" timestamptz not null, "attached_at" timestamptz not null default now())`;

const PLAIN = /^[a-z_][a-z0-9_]*$/;

export interface InPlaceOptions {
  /**
   * Indexes of the old table that the partitioned one does without: dropped in the swap (under its
   * lock) and not created on the parent. For an index only the previous release needed (a post-deploy
   * migration runs once no node of it is left).
   */
  dropIndexes?: readonly string[];
}

/** Partitions `table` in place (see the file's comment). Does nothing when it is partitioned already. */
export async function partitionInPlace(em: EntityManager, table: string, now: Date, options: InPlaceOptions = {}): Promise<void> {
  const dropIndexes = options.dropIndexes ?? [];
  if (!PLAIN.test(table)) throw new Error(`not a plain identifier: ${table}`);
  const q = sqlOn(em);
  await q(PARTITION_LEGACY_DDL);
  if ((await q(`select 1 from pg_partitioned_table where partrelid = to_regclass(?)`, [`"${table}"`])).length > 0) return;

  // The foreign keys into the table, each alone (a key to a partitioned table must name its whole
  // primary key; retention removes the children itself).
  for (const fk of await q<{ table: string; name: string }>(
    `select c.conrelid::regclass::text as table, c.conname as name from pg_constraint c where c.confrelid = to_regclass(?) and c.contype = 'f' order by 1, 2`,
    [`"${table}"`],
  ))
    await shortDdl(em, (t) => t(`alter table ${fk.table} drop constraint if exists "${fk.name}"`));

  const empty = await shortDdl(em, async (t) => {
    await t(`lock table "${table}" in access exclusive mode`);
    if ((await t<{ has: boolean }>(`select exists (select 1 from "${table}") as has`))[0]!.has) return false;
    const shape = await readShape(t, table, dropIndexes);
    // Its names freed for the parent, which takes its columns; then it goes.
    for (const key of shape.keys) await t(`alter table "${table}" drop constraint "${key.name}"`);
    await t(`alter table "${table}" rename to "${table}_legacy"`);
    for (const index of shape.indexes) await t(`alter index "${index.name}" rename to "${legacyName(table, index.name)}"`);
    for (const s of parentSql(table, shape)) await t(s);
    await t(`drop table "${table}_legacy"`);
    for (let m = monthStart(now); m <= addMonths(monthStart(now), 2); m = addMonths(m, 1)) await t(createPartitionSql(table, table, m));
    return true;
  });
  if (empty) return;

  // 1. The unique indexes the partitioned keys attach (an invalid leftover is built again).
  for (const key of await keyConstraints(q, table)) {
    const name = keyIndexName(table, key.columns);
    const idx = await q<{ valid: boolean }>(
      `select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = ? and c.relnamespace = current_schema()::regnamespace`,
      [name],
    );
    if (idx.length > 0 && idx[0]?.valid !== true) await q(`drop index concurrently if exists "${name}"`);
    await q(`create unique index concurrently if not exists "${name}" on "${table}" (${[...key.columns, 'created_at'].map((c) => `"${c}"`).join(', ')})`);
  }

  // 2. The range check, validated without blocking writes.
  const check = `${table}_legacy_range`;
  const dropCheck = () => shortDdl(em, (t) => t(`alter table "${table}" drop constraint if exists "${check}"`));
  const left = await legacyRangeBound(em, table);
  let until = addMonths(monthStart(now), 2);
  if (left && left.getTime() >= now.getTime() + 31 * 86_400_000) until = left;
  else {
    if (left) await dropCheck();
    await shortDdl(em, (t) => t(`alter table "${table}" add constraint "${check}" check ("created_at" < '${until.toISOString()}'::timestamptz) not valid`));
  }
  await q(`alter table "${table}" validate constraint "${check}"`);

  // 3. The swap, in one short transaction.
  await shortDdl(em, async (t) => {
    await t(`lock table "${table}" in access exclusive mode`);
    const shape = await readShape(t, table, dropIndexes);
    for (const key of shape.keys) {
      await t(`alter table "${table}" drop constraint "${key.name}"`);
      await t(
        `alter table "${table}" add constraint "${legacyName(table, key.name)}" ${key.primary ? 'primary key' : 'unique'} using index "${keyIndexName(table, key.columns)}"`,
      );
    }
    for (const trigger of shape.triggers) await t(`drop trigger "${trigger.name}" on "${table}"`);
    for (const index of dropIndexes) await t(`drop index if exists "${index}"`);
    for (const col of shape.identities) await t(`alter table "${table}" alter column "${col.name}" drop identity`);
    await t(`alter table "${table}" rename to "${table}_legacy"`);
    for (const index of shape.indexes) await t(`alter index "${index.name}" rename to "${legacyName(table, index.name)}"`);
    for (const s of parentSql(table, shape)) await t(s);
    await t(`alter table "${table}" attach partition "${table}_legacy" for values from (minvalue) to ('${until.toISOString()}')`);
    for (let m = until; m <= addMonths(until, 1); m = addMonths(m, 1)) await t(createPartitionSql(table, table, m));
    await t(`insert into "partition_legacy" ("table_name", "partition", "until") values (?, ?, ?)`, [table, `${table}_legacy`, until.toISOString()]);
  }).catch(async (err: unknown) => {
    await dropCheck().catch(() => undefined);
    throw err;
  });
}

interface KeyConstraint {
  name: string;
  primary: boolean;
  columns: string[];
}

/** What the partitioned parent takes from the table, read from the catalog (definitions name `<schema>.<table>`). */
interface Shape {
  keys: KeyConstraint[];
  foreignKeys: { name: string; def: string }[];
  /** Indexes that back no constraint, with their CREATE INDEX statements. */
  indexes: { name: string; def: string }[];
  triggers: { name: string; def: string }[];
  /** Identity columns, with the next value of their sequence. */
  identities: { name: string; always: boolean; next: string }[];
}

async function keyConstraints(t: Sql, table: string): Promise<KeyConstraint[]> {
  const rows = await t<{ name: string; contype: string; columns: string[] }>(
    `select c.conname as name, c.contype,
            array(select a.attname::text from unnest(c.conkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.o) as columns
       from pg_constraint c where c.conrelid = to_regclass(?) and c.contype in ('p', 'u') order by c.contype, c.conname`,
    [`"${table}"`],
  );
  return rows.map((r) => ({ name: r.name, primary: r.contype === 'p', columns: r.columns.filter((c) => c !== 'created_at') }));
}

async function readShape(t: Sql, table: string, dropIndexes: readonly string[]): Promise<Shape> {
  const rel = `"${table}"`;
  const keys = await keyConstraints(t, table);
  const foreignKeys = await t<{ name: string; def: string }>(
    `select conname as name, pg_get_constraintdef(oid) as def from pg_constraint where conrelid = to_regclass(?) and contype = 'f' order by conname`,
    [rel],
  );
  const prebuilt = keys.map((k) => keyIndexName(table, k.columns));
  const indexes = (
    await t<{ name: string; def: string }>(
      `select c.relname as name, pg_get_indexdef(i.indexrelid) as def from pg_index i join pg_class c on c.oid = i.indexrelid
        where i.indrelid = to_regclass(?) and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid) order by c.relname`,
      [rel],
    )
  ).filter((i) => !prebuilt.includes(i.name) && !dropIndexes.includes(i.name));
  const triggers = await t<{ name: string; def: string }>(
    `select tgname as name, pg_get_triggerdef(oid) as def from pg_trigger where tgrelid = to_regclass(?) and not tgisinternal order by tgname`,
    [rel],
  );
  const identities: Shape['identities'] = [];
  for (const col of await t<{ name: string; identity: string }>(
    `select attname as name, attidentity as identity from pg_attribute where attrelid = to_regclass(?) and attidentity <> '' and attnum > 0 and not attisdropped`,
    [rel],
  )) {
    const [seq] = await t<{ next: string }>(`select nextval(pg_get_serial_sequence(?, ?))::text as next`, [rel, col.name]);
    identities.push({ name: col.name, always: col.identity === 'a', next: seq!.next });
  }
  return { keys, foreignKeys, indexes, triggers, identities };
}

/** The partitioned `<table>` (after the old one was renamed), from the old table's shape. */
function parentSql(table: string, shape: Shape): string[] {
  return [
    // The checks are copied as they are (a check re-created from its text can differ in form, and
    // attaching then refuses the old table's); the legacy range check stays on the old table.
    `create table "${table}" (like "${table}_legacy" including defaults including constraints) partition by range ("created_at")`,
    `alter table "${table}" drop constraint if exists "${table}_legacy_range"`,
    ...shape.keys.map(
      (k) =>
        `alter table "${table}" add constraint "${k.name}" ${k.primary ? 'primary key' : 'unique'} (${[...k.columns, 'created_at'].map((c) => `"${c}"`).join(', ')})`,
    ),
    ...shape.indexes.map((i) => i.def),
    ...shape.foreignKeys.map((f) => `alter table "${table}" add constraint "${f.name}" ${f.def}`),
    ...shape.triggers.map((tr) => tr.def),
    ...shape.identities.map(
      (c) => `alter table "${table}" alter column "${c.name}" add generated ${c.always ? 'always' : 'by default'} as identity (start with ${c.next})`,
    ),
  ];
}

/** The step-1 index of a key on `columns`. */
const keyIndexName = (table: string, columns: readonly string[]) => `${table}_${columns.join('_')}_created_at_unique`.slice(0, 63);

/** `<table>_x` → `<table>_legacy_x` (any other name gets the prefix). */
const legacyName = (table: string, name: string) =>
  (name.startsWith(`${table}_`) ? `${table}_legacy_${name.slice(table.length + 1)}` : `${table}_legacy_${name}`).slice(0, 63);
