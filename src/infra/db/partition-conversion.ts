// The live in-place conversion of a table into its partitioned copy `<table>_p`, started by a
// migration (Migration20261201300000AuditLogPartitions for audit_log: the copy, its partitions, an
// insert-mirroring trigger and a `partition_conversions` row). The `partitions.convert` job then:
//
// 1. Backfill: copies the old table's heap in block ranges (TID range scans, no index needed),
//    one short transaction per batch that also advances `next_block`, so a crash or a restart
//    resumes where the last committed batch ended. `on conflict do nothing` makes a row copied by
//    both the backfill and the trigger (a later insert landing in a free slot of an old block) count
//    once. Rows inserted after the trigger existed are the trigger's: the backfill stops at the block
//    count recorded when it was created.
// 2. Swap: one transaction with a short lock_timeout (retried): lock the old table, rename it to
//    `<table>_legacy` and the copy to `<table>` (indexes too), drop the trigger. Every writer (this
//    release and the previous one) names the table, and PostgreSQL re-analyses a cached plan or a
//    prepared statement whose relation changed, so they write to the partitioned table from then on.
// 3. Drop `<table>_legacy` at once: after the swap it stops receiving rows, so it is no rollback
//    path, only disk.
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { conversionTableName, createPartitionSql, ensurePartitionsAhead, PARTITIONED_TABLES } from './partitions.js';
import { isLockTimeout, sqlState } from './sql-state.js';

export interface ConversionOptions {
  /** Heap blocks per batch (8 KB each; about 20 audit rows per block). */
  batchBlocks?: number;
  /** Stop starting batches after this long (the job resumes in its next slot). */
  budgetMs?: number;
  /** Stop after this many batches (tests: an interrupted backfill). */
  maxBatches?: number;
  /** The swap's lock_timeout; a timed-out swap is retried swapAttempts times. */
  lockTimeoutMs?: number;
  swapAttempts?: number;
  /** PARTITION_MONTHS_AHEAD: the copy gets them before it takes the name. */
  monthsAhead?: number;
}

export interface ConversionResult {
  table: string;
  /** Rows copied by this run's batches. */
  copied: number;
  batches: number;
  state: 'none' | 'backfilling' | 'swapped' | 'done';
  /** How long the swap held its ACCESS EXCLUSIVE locks (granted to committed), when it ran. */
  swapMs?: number;
  /** How long the swap waited for them (writers queue behind it meanwhile). */
  swapWaitMs?: number;
}

interface Progress {
  next_block: string | number;
  end_block: string | number;
  backfilled_at: Date | null;
  swapped_at: Date | null;
  legacy_dropped_at: Date | null;
}

function exec<T>(em: EntityManager, sql: string, params: unknown[] = []): Promise<T[]> {
  return em.getConnection().execute(sql, params, 'all', em.getTransactionContext()) as Promise<T[]>;
}

async function progressOf(em: EntityManager, table: string, lock = false): Promise<Progress | undefined> {
  const exists = await exec<{ ok: boolean }>(em, `select to_regclass('partition_conversions') is not null as ok`);
  if (!exists[0]?.ok) return undefined;
  const rows = await exec<Progress>(
    em,
    `select next_block, end_block, backfilled_at, swapped_at, legacy_dropped_at from partition_conversions where table_name = ?${lock ? ' for update' : ''}`,
    [table],
  );
  return rows[0];
}

async function columnList(em: EntityManager, relation: string): Promise<string> {
  const rows = await exec<{ list: string }>(
    em,
    `select string_agg(quote_ident(attname), ', ' order by attnum) as list from pg_attribute where attrelid = to_regclass(?) and attnum > 0 and not attisdropped`,
    [relation],
  );
  return rows[0]!.list;
}

/** One backfill batch; false when the backfill is complete. */
async function backfillBatch(orm: MikroORM, table: string, batchBlocks: number, out: { copied: number }): Promise<boolean> {
  const copy = conversionTableName(table);
  for (let attempt = 0; ; attempt++) {
    try {
      return await orm.em.fork().transactional(async (tx) => {
        // The row lock serialises runners on several processes: each batch starts where the last committed one ended.
        const p = (await progressOf(tx, table, true))!;
        const from = Number(p.next_block);
        const end = Number(p.end_block);
        if (from >= end) return false;
        const to = Math.min(from + batchBlocks, end);
        const cols = await columnList(tx, copy);
        const [row] = await exec<{ n: number }>(
          tx,
          `with ins as (insert into "${copy}" (${cols}) select ${cols} from "${table}" where ctid >= ?::tid and ctid < ?::tid on conflict do nothing returning 1)
           select count(*)::int as n from ins`,
          [`(${from},0)`, `(${to},0)`],
        );
        await exec(tx, `update partition_conversions set next_block = ?, rows_copied = rows_copied + ? where table_name = ?`, [to, row!.n, table]);
        out.copied += row!.n;
        return true;
      });
    } catch (err) {
      // 23514: a row of a month the copy has no partition for (older than the migration looked).
      if (sqlState(err) !== '23514' || attempt > 0) throw err;
      await createMonthsOfBatch(orm, table);
    }
  }
}

/** Creates the copy's partitions for every month of the next batch's rows. */
async function createMonthsOfBatch(orm: MikroORM, table: string): Promise<void> {
  const em = orm.em.fork();
  const p = (await progressOf(em, table))!;
  const months = await exec<{ m: Date | string }>(
    em,
    `select distinct date_trunc('month', created_at, 'UTC') as m from "${table}" where ctid >= ?::tid and ctid < ?::tid`,
    [`(${Number(p.next_block)},0)`, `(${Number(p.end_block)},0)`],
  );
  for (const { m } of months) await exec(em, createPartitionSql(table, conversionTableName(table), new Date(m)));
}

async function swap(orm: MikroORM, table: string, lockTimeoutMs: number): Promise<{ heldMs: number; waitMs: number } | null> {
  const copy = conversionTableName(table);
  const legacy = `${table}_legacy`;
  let requested = 0;
  let granted = 0;
  const done = await orm.em.fork().transactional(async (tx) => {
    const p = await progressOf(tx, table, true);
    if (!p || p.swapped_at) return false;
    await exec(tx, `select set_config('lock_timeout', ?, true)`, [`${lockTimeoutMs}ms`]);
    requested = performance.now();
    await exec(tx, `lock table "${table}", "${copy}" in access exclusive mode`);
    granted = performance.now();
    const indexes = await exec<{ relname: string; owner: string }>(
      tx,
      `select i.relname, t.relname as owner from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
        where x.indrelid in (to_regclass(?), to_regclass(?))`,
      [table, copy],
    );
    await exec(tx, `alter table "${table}" rename to "${legacy}"`);
    for (const ix of indexes.filter((i) => i.owner === table && i.relname.startsWith(`${table}_`)))
      await exec(tx, `alter index "${ix.relname}" rename to "${legacy}_${ix.relname.slice(table.length + 1)}"`);
    await exec(tx, `alter table "${copy}" rename to "${table}"`);
    for (const ix of indexes.filter((i) => i.owner === copy && i.relname.startsWith(`${copy}_`)))
      await exec(tx, `alter index "${ix.relname}" rename to "${table}_${ix.relname.slice(copy.length + 1)}"`);
    await exec(tx, `drop trigger if exists "${table}_mirror" on "${legacy}"`);
    await exec(tx, `drop function if exists "${table}_mirror"()`);
    await exec(tx, `update partition_conversions set swapped_at = now() where table_name = ?`, [table]);
    return true;
  });
  return done ? { heldMs: performance.now() - granted, waitMs: granted - requested } : null;
}

async function dropLegacy(orm: MikroORM, table: string, lockTimeoutMs: number): Promise<void> {
  await orm.em.fork().transactional(async (tx) => {
    await exec(tx, `select set_config('lock_timeout', ?, true)`, [`${lockTimeoutMs}ms`]);
    await exec(tx, `drop table if exists "${table}_legacy"`);
    await exec(tx, `update partition_conversions set legacy_dropped_at = now() where table_name = ?`, [table]);
  });
}

/** Advances `table`'s conversion as far as the budget allows (a no-op once done or when none was started). */
export async function advanceConversion(orm: MikroORM, table: string, now: Date, opts: ConversionOptions = {}): Promise<ConversionResult> {
  const em = orm.em.fork();
  const p = await progressOf(em, table);
  if (!p) return { table, copied: 0, batches: 0, state: 'none' };
  if (p.legacy_dropped_at) return { table, copied: 0, batches: 0, state: 'done' };
  const out: ConversionResult = { table, copied: 0, batches: 0, state: 'backfilling' };
  const lockTimeoutMs = opts.lockTimeoutMs ?? 2_000;
  if (!p.swapped_at) {
    if (!p.backfilled_at) {
      const until = performance.now() + (opts.budgetMs ?? 600_000);
      const counter = { copied: 0 };
      let more = true;
      while (more && performance.now() < until && out.batches < (opts.maxBatches ?? Number.POSITIVE_INFINITY)) {
        more = await backfillBatch(orm, table, opts.batchBlocks ?? 500, counter);
        if (more) out.batches++;
      }
      out.copied = counter.copied;
      if (more) return out;
      await exec(em, `update partition_conversions set backfilled_at = now() where table_name = ? and backfilled_at is null`, [table]);
    }
    // The copy must have next months' partitions before it takes the name.
    await ensurePartitionsAhead(
      em,
      now,
      opts.monthsAhead ?? 2,
      PARTITIONED_TABLES.filter((t) => t.table === table),
    );
    const attempts = opts.swapAttempts ?? 10;
    for (let i = 0; ; i++) {
      try {
        const timing = await swap(orm, table, lockTimeoutMs);
        if (timing) {
          out.swapMs = timing.heldMs;
          out.swapWaitMs = timing.waitMs;
        }
        break;
      } catch (err) {
        // A long transaction holds the table; writers waited at most lockTimeoutMs.
        if (!isLockTimeout(err) || i + 1 >= attempts) throw err;
        await sleep(1_000);
      }
    }
  }
  out.state = 'swapped';
  await dropLegacy(orm, table, lockTimeoutMs);
  out.state = 'done';
  return out;
}

/** `partitions.convert`: advances every registered table's live conversion (nothing once done). */
export const partitionsConvertTask = {
  name: 'partitions.convert',
  everySeconds: 60,
  run: async (deps: { orm: MikroORM; partitions: { monthsAhead: number } }, now: Date): Promise<{ processed: number; results: ConversionResult[] }> => {
    const results: ConversionResult[] = [];
    // Ten minutes per run at most: the job's expiry is 15 (infra/queue/maintenance-queue.ts).
    // Tables with a copying conversion (audit_log); deliveries is partitioned by a post-deploy migration instead.
    for (const t of PARTITIONED_TABLES) {
      const r = await advanceConversion(deps.orm, t.table, now, { budgetMs: 600_000, monthsAhead: deps.partitions.monthsAhead });
      if (r.state !== 'none') results.push(r);
    }
    return { processed: results.reduce((n, r) => n + r.copied + (r.swapMs !== undefined ? 1 : 0), 0), results };
  },
};
