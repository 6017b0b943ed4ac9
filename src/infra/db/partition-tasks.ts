// The partition maintenance jobs (app/maintenance-tasks.ts; pg-boss singletons, once per period
// across every WORKER=on process) and the readiness probe on next month's partitions. Time is the
// caller's `now` (the injected clock), so tests move a ManualClock instead of waiting.
import type { MikroORM } from '@mikro-orm/core';
import type { Clock } from '../../domain/context.js';
import {
  addMonths,
  dropExpiredPartitions,
  ensurePartitionsAhead,
  expiredPartitions,
  legacyRangeChecksDue,
  missingNextMonth,
  monthStart,
  type PartitionSettings,
} from './partitions.js';

export interface PartitionDeps {
  orm: MikroORM;
  partitions: PartitionSettings;
}

/** `partitions.ahead`: the current month and the next PARTITION_MONTHS_AHEAD exist (also run at start-up). */
export const partitionsAheadTask = {
  name: 'partitions.ahead',
  everySeconds: 86_400,
  run: async (deps: PartitionDeps, now: Date): Promise<{ processed: number; created: string[] }> => {
    const created = await ensurePartitionsAhead(deps.orm.em.fork(), now, deps.partitions.monthsAhead);
    return { processed: created.length, created: created.map((c) => c.partition) };
  },
};

/** `partitions.retention`: detaches and drops whole months past AUDIT_RETENTION_DAYS (DELIVERY_RETENTION_DAYS). */
export const partitionsRetentionTask = {
  name: 'partitions.retention',
  everySeconds: 86_400,
  run: async (deps: PartitionDeps, now: Date): Promise<{ processed: number; dropped: string[] }> => {
    const em = deps.orm.em.fork();
    const dropped = await dropExpiredPartitions(em, await expiredPartitions(em, now, deps.partitions.retentionDays));
    return { processed: dropped.length, dropped: dropped.map((d) => d.partition) };
  },
};

/** A positive answer is reused this long (clock time): a probe every few seconds stays one catalog query per 30 s. */
const PROBE_OK_CACHE_MS = 30_000;

/**
 * Readiness: fails while a partitioned table has no partition for next month (the ahead job has not
 * run for weeks), so an operator sees it before inserts fail at the month's turn; and within a week
 * of the bound of a range check an interrupted in-place partitioning left (on any of the tables). A failure is not
 * cached: it turns ok at the first probe after the job (or the migration).
 */
export class NextMonthPartitionsProbe {
  private okUntil = 0;

  constructor(
    private readonly orm: MikroORM,
    private readonly clock: Clock,
  ) {}

  async check(): Promise<void> {
    const now = this.clock.now();
    if (now.getTime() < this.okUntil) return;
    const em = this.orm.em.fork();
    const missing = await missingNextMonth(em, now);
    if (missing.length > 0) {
      this.okUntil = 0;
      throw new Error(`no partition for next month (${addMonths(monthStart(now), 1).toISOString().slice(0, 7)}) of ${missing.join(', ')}`);
    }
    const [due] = await legacyRangeChecksDue(em, now);
    if (due) {
      this.okUntil = 0;
      throw new Error(
        `${due.table} refuses rows from ${due.until.toISOString()} on (${due.table}_legacy_range, left by an interrupted partitioning): run npx fluxdesk migrate --post-deploy`,
      );
    }
    // Never past the month's turn, when "next month" changes.
    this.okUntil = Math.min(now.getTime() + PROBE_OK_CACHE_MS, addMonths(monthStart(now), 1).getTime());
  }
}
