// Monthly range partitions on created_at (docs/scaling.md section 4), for every table of the
// registry below: `<table>_YYYY_MM` holds [first of the month, first of the next month) in UTC.
// Partitions are created ahead (the current month and the next PARTITION_MONTHS_AHEAD) at start-up
// and by the daily `partitions.ahead` job; there is no default partition, so an insert for a month
// that has none fails loudly, and readiness turns false while next month's is missing. The
// retention job detaches and drops whole months whose every row is older than the table's
// retention. Table-agnostic: a table joins by a registry entry (and a migration that partitions it).
import type { EntityManager } from '@mikro-orm/core';

export type RetentionFamily = 'audit' | 'delivery';

export interface PartitionedTable {
  /** The table's name as the application addresses it. */
  table: string;
  /** Which retention setting applies (AUDIT_RETENTION_DAYS, DELIVERY_RETENTION_DAYS). */
  retention: RetentionFamily;
}

/**
 * The partitioned tables. Retention drops them in this order: a delivery month takes its inbox rows
 * and supplements along (DEPENDENTS), so the notifications and supplements months that follow hold
 * only what is left (inbox rows without a delivery).
 */
export const PARTITIONED_TABLES: readonly PartitionedTable[] = [
  { table: 'audit_log', retention: 'audit' },
  { table: 'deliveries', retention: 'delivery' },
  { table: 'notifications', retention: 'delivery' },
  { table: 'delivery_supplements', retention: 'delivery' },
];

/**
 * While a table is converted in place, the partitioned copy is `<table>_p` (same partition
 * names) until the swap renames it; the machinery then serves the copy.
 */
export const conversionTableName = (table: string) => `${table}_p`;

export interface PartitionSettings {
  monthsAhead: number;
  retentionDays: Record<RetentionFamily, number>;
}

const PLAIN_IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** The first instant of `d`'s month (UTC). */
export function monthStart(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

export function addMonths(month: Date, n: number): Date {
  return new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + n, 1));
}

export function partitionName(table: string, month: Date): string {
  return `${table}_${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The month a partition of ours holds (from its name), or null for any other child. */
export function partitionMonth(table: string, name: string): Date | null {
  const m = new RegExp(`^${table}_(\\d{4})_(\\d{2})$`).exec(name);
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)) : null;
}

function ident(name: string): string {
  if (!PLAIN_IDENTIFIER.test(name)) throw new Error(`not a plain identifier: ${name}`);
  return `"${name}"`;
}

/** `create table if not exists <table>_YYYY_MM partition of <parent> for values from (...) to (...)`. */
export function createPartitionSql(table: string, parent: string, month: Date): string {
  const from = month.toISOString();
  const to = addMonths(month, 1).toISOString();
  return `create table if not exists ${ident(partitionName(table, month))} partition of ${ident(parent)} for values from ('${from}') to ('${to}')`;
}

/** The months [current, current + monthsAhead] for `now`. */
export function monthsToHave(now: Date, monthsAhead: number): Date[] {
  const first = monthStart(now);
  return Array.from({ length: monthsAhead + 1 }, (_, i) => addMonths(first, i));
}

/** Months wholly older than the retention: every row of [month, next month) is older than now - days. */
export function isExpired(month: Date, now: Date, retentionDays: number): boolean {
  return addMonths(month, 1).getTime() <= now.getTime() - retentionDays * 86_400_000;
}

function exec<T>(em: EntityManager, sql: string, params: unknown[] = []): Promise<T[]> {
  return em.getConnection().execute(sql, params, 'all', em.getTransactionContext()) as Promise<T[]>;
}

/**
 * The relation that holds `table`'s partitions: the table itself once partitioned, its
 * conversion copy while a live conversion runs, or null (not partitioned here).
 */
export async function partitionedParent(em: EntityManager, table: string): Promise<string | null> {
  const rows = await exec<{ relname: string }>(
    em,
    `select c.relname from pg_partitioned_table p join pg_class c on c.oid = p.partrelid
      where c.relnamespace = current_schema()::regnamespace and c.relname in (?, ?)`,
    [table, conversionTableName(table)],
  );
  const names = rows.map((r) => r.relname);
  if (names.includes(table)) return table;
  return names.includes(conversionTableName(table)) ? conversionTableName(table) : null;
}

/** The children of `parent`, by name. */
async function childNames(em: EntityManager, parent: string): Promise<string[]> {
  const rows = await exec<{ relname: string }>(
    em,
    `select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = (select oid from pg_class where relname = ? and relnamespace = current_schema()::regnamespace)`,
    [parent],
  );
  return rows.map((r) => r.relname);
}

/**
 * A table partitioned in place keeps its old rows in one partition for [MINVALUE, until)
 * (Migration20261202000000DeliveriesPartitioned, recorded in partition_legacy); its months start at
 * `until`.
 */
export interface LegacyPartition {
  partition: string;
  until: Date;
}

export async function legacyPartition(em: EntityManager, table: string): Promise<LegacyPartition | null> {
  const [known] = await exec<{ ok: boolean }>(em, `select to_regclass('partition_legacy') is not null as ok`);
  if (!known?.ok) return null;
  const rows = await exec<{ partition: string; until: Date | string }>(
    em,
    `select l.partition, l.until from partition_legacy l where l.table_name = ? and to_regclass(l.partition) is not null`,
    [table],
  );
  return rows[0] ? { partition: rows[0].partition, until: new Date(rows[0].until) } : null;
}

/** Whether `month` lies in the table's legacy partition (nothing to create for it). */
const inLegacy = (legacy: LegacyPartition | null, month: Date) => legacy !== null && month.getTime() < legacy.until.getTime();

/** Arbitrary constant: "fluxdesk partitions". Serialises DDL of processes starting at once. */
const PARTITION_LOCK_KEY = 0x0f1d9a27;

export interface CreatedPartition {
  table: string;
  partition: string;
}

/**
 * Creates the missing partitions of the current month and the next `monthsAhead` (idempotent).
 * One transaction per table under an advisory lock, so processes starting at once create each
 * partition once (no `relation already exists` race).
 */
export async function ensurePartitionsAhead(
  em: EntityManager,
  now: Date,
  monthsAhead: number,
  tables: readonly PartitionedTable[] = PARTITIONED_TABLES,
): Promise<CreatedPartition[]> {
  const created: CreatedPartition[] = [];
  for (const { table } of tables) {
    const parent = await partitionedParent(em, table);
    if (!parent) continue;
    const legacy = await legacyPartition(em, table);
    const wanted = monthsToHave(now, monthsAhead).filter((m) => !inLegacy(legacy, m));
    let have = new Set(await childNames(em, parent));
    if (wanted.every((m) => have.has(partitionName(table, m)))) continue;
    await em.fork().transactional(async (tx) => {
      await exec(tx, 'select pg_advisory_xact_lock(?)', [PARTITION_LOCK_KEY]);
      have = new Set(await childNames(tx, parent));
      for (const m of wanted) {
        if (have.has(partitionName(table, m))) continue;
        await exec(tx, createPartitionSql(table, parent, m));
        created.push({ table, partition: partitionName(table, m) });
      }
    });
  }
  return created;
}

/** Tables whose partition for the month after `now`'s is missing (readiness). */
export async function missingNextMonth(em: EntityManager, now: Date, tables: readonly PartitionedTable[] = PARTITIONED_TABLES): Promise<string[]> {
  const next = addMonths(monthStart(now), 1);
  const missing: string[] = [];
  for (const t of tables) {
    const [row] = await exec<{ partitioned: boolean; present: boolean }>(
      em,
      `select (to_regclass(?) is not null or exists (select 1 from pg_partitioned_table where partrelid = to_regclass(?))) as partitioned,
              to_regclass(?) is not null as present`,
      [conversionTableName(t.table), t.table, partitionName(t.table, next)],
    );
    if (row?.partitioned && !row.present && !inLegacy(await legacyPartition(em, t.table), next)) missing.push(t.table);
  }
  return missing;
}

/** The bound of `table`'s legacy range check (an in-place partitioning's step 2), or null when it has none. */
export async function legacyRangeBound(em: EntityManager, table: string): Promise<Date | null> {
  const [row] = await exec<{ until: Date | string | null }>(
    em,
    `select (regexp_match(pg_get_constraintdef(oid), '''([^'']+)''::timestamp with time zone'))[1]::timestamptz as until
       from pg_constraint where conrelid = to_regclass(?) and conname = ?`,
    [ident(table), `${table}_legacy_range`],
  );
  return row?.until ? new Date(row.until) : null;
}

/**
 * The range check of an interrupted in-place partitioning (Migration20261202000000DeliveriesPartitioned,
 * src/infra/db/partition-in-place.ts step 2) binds every new row until the swap: the tables whose
 * check's bound is less than a week away (readiness says so before inserts start to fail at it).
 */
export async function legacyRangeChecksDue(
  em: EntityManager,
  now: Date,
  tables: readonly PartitionedTable[] = PARTITIONED_TABLES,
): Promise<{ table: string; until: Date }[]> {
  const due: { table: string; until: Date }[] = [];
  for (const { table } of tables) {
    const until = await legacyRangeBound(em, table);
    if (until && until.getTime() < now.getTime() + 7 * 86_400_000) due.push({ table, until });
  }
  return due;
}

export interface ExpiredPartition {
  table: string;
  partition: string;
  /** [from, to) in UTC. */
  from: string;
  to: string;
  /** PostgreSQL's estimate (pg_class.reltuples), null before the first ANALYZE. */
  rowsEstimate: number | null;
}

/** What the retention would drop at `now`: whole months past each table's retention, oldest first. */
export async function expiredPartitions(
  em: EntityManager,
  now: Date,
  retentionDays: Record<RetentionFamily, number>,
  tables: readonly PartitionedTable[] = PARTITIONED_TABLES,
): Promise<ExpiredPartition[]> {
  const out: ExpiredPartition[] = [];
  for (const t of tables) {
    // Only a table that is partitioned under its own name: a conversion copy is not the live table yet.
    if ((await partitionedParent(em, t.table)) !== t.table) continue;
    const legacy = await legacyPartition(em, t.table);
    // Its partitions, and a month (or the legacy partition) that an interrupted run detached but did not drop.
    const rows = await exec<{ relname: string; reltuples: number }>(
      em,
      `select c.relname, c.reltuples::float8 as reltuples from pg_class c
        where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r'
          and (exists (select 1 from pg_inherits i where i.inhrelid = c.oid and i.inhparent = ?::regclass)
               or (not exists (select 1 from pg_inherits i where i.inhrelid = c.oid) and (c.relname ~ ? or c.relname = ?)))
        order by c.relname`,
      [t.table, `^${t.table}_[0-9]{4}_[0-9]{2}$`, legacy?.partition ?? ''],
    );
    const cutoff = now.getTime() - retentionDays[t.retention] * 86_400_000;
    for (const r of rows) {
      const month = partitionMonth(t.table, r.relname);
      const range =
        month && addMonths(month, 1).getTime() <= cutoff
          ? { from: month.toISOString(), to: addMonths(month, 1).toISOString() }
          : legacy && r.relname === legacy.partition && legacy.until.getTime() <= cutoff
            ? { from: '-infinity', to: legacy.until.toISOString() }
            : null;
      if (!range) continue;
      const estimate = Number(r.reltuples);
      out.push({ table: t.table, partition: r.relname, ...range, rowsEstimate: estimate < 0 ? null : Math.round(estimate) });
    }
  }
  return out;
}

/**
 * Detaches and drops `expired` (from expiredPartitions). DETACH ... CONCURRENTLY takes no ACCESS
 * EXCLUSIVE lock on the parent, so writers go on; it cannot run in a transaction block, and where it
 * is refused (PGlite, an older server) a plain DETACH (a short ACCESS EXCLUSIVE lock) does it. A
 * detach interrupted half-way (the partition left "detach pending") is finished with FINALIZE.
 */
export async function dropExpiredPartitions(em: EntityManager, expired: readonly ExpiredPartition[]): Promise<ExpiredPartition[]> {
  const dropped: ExpiredPartition[] = [];
  for (const p of expired) {
    const parent = ident(p.table);
    const part = ident(p.partition);
    const dependents = DEPENDENTS[p.table];
    // Children first, while attached (the bulk); again once detached, for a row a repeat moved to a block already passed.
    if (dependents) await deleteDependents(em, p.partition, dependents);
    const pending = await exec<{ pending: boolean }>(em, `select i.inhdetachpending as pending from pg_inherits i where i.inhrelid = to_regclass(?)`, [
      p.partition,
    ]);
    if (pending.length > 0) {
      if (pending[0]!.pending) await exec(em, `alter table ${parent} detach partition ${part} finalize`);
      else {
        try {
          await exec(em, `alter table ${parent} detach partition ${part} concurrently`);
        } catch {
          await exec(em, `alter table ${parent} detach partition ${part}`);
        }
      }
    }
    if (dependents) await deleteDependents(em, p.partition, dependents);
    await exec(em, `drop table if exists ${part}`);
    dropped.push(p);
  }
  return dropped;
}

/**
 * What goes with a table's rows: the columns a batch `d` of them carries, and the statements that
 * remove the rest for it. For a delivery: its dedup key (first: a key without its delivery is
 * replaced by the next publish of its event_id, a new delivery, as the inbound protocol says), its
 * inbox row, supplements, hold entry and trace. An inbox row goes by a DELETE through the
 * partitioned table (a dropped partition fires no trigger, and a DELETE on the partition itself
 * fires only the partition's), so the inbox counters' statement triggers keep them exact.
 * nudge_outbox / nudge_held / nudge_failures rows are short-lived and have no key.
 */
const DEPENDENTS: Record<string, { columns: string; statements: readonly string[] }> = {
  deliveries: {
    columns: 'id, token_id, event_id, created_at',
    statements: [
      'delete from delivery_keys k using batch d where k.token_id = d.token_id and k.event_id = d.event_id and k.delivery_id = d.id',
      // An inbox row has its delivery's time (docs/scaling.md 4.3): one partition's index per row.
      'delete from notifications c using batch d where c.delivery_id = d.id and c.created_at = d.created_at',
      'delete from delivery_supplements c using batch d where c.delivery_id = d.id',
      'delete from moderation_queue c using batch d where c.delivery_id = d.id',
      'delete from delivery_trace c using batch d where c.delivery_id = d.id',
    ],
  },
  notifications: { columns: 'id, created_at', statements: ['delete from notifications c using batch d where c.id = d.id and c.created_at = d.created_at'] },
};

/** Heap blocks per retention batch (about 4,000 deliveries): one short transaction each. */
const DEPENDENT_BATCH_BLOCKS = 200;

/** Runs `statements` for `partition`'s rows, in batches of heap blocks (TID range scans, no index needed). */
async function deleteDependents(em: EntityManager, partition: string, dependents: { columns: string; statements: readonly string[] }): Promise<void> {
  const [size] = await exec<{ blocks: number }>(em, `select (pg_relation_size(?::regclass) / current_setting('block_size')::bigint)::int as blocks`, [
    ident(partition),
  ]);
  for (let from = 0; from < (size?.blocks ?? 0); from += DEPENDENT_BATCH_BLOCKS) {
    await em.fork().transactional(async (tx) => {
      await exec(
        tx,
        `create temporary table batch on commit drop as
           select ${dependents.columns} from ${ident(partition)} where ctid >= format('(%s,0)', ?::int)::tid and ctid < format('(%s,0)', ?::int)::tid`,
        [from, from + DEPENDENT_BATCH_BLOCKS],
      );
      for (const sql of dependents.statements) await exec(tx, sql);
    });
  }
}
