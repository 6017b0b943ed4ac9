// `fluxdesk retention [--apply]`: the months the daily `partitions.retention` job would drop now
// (table, partition, [from, to), PostgreSQL's row estimate), and with --apply drops them the same
// way (infra/db/partitions.ts). Only whole months past AUDIT_RETENTION_DAYS / DELIVERY_RETENTION_DAYS.
import type { AppDeps } from './deps.js';
import { dropExpiredPartitions, expiredPartitions } from '../infra/db/partitions.js';

/** The operator socket's name for it (embedded mode, a server owning DATA_DIR). */
export const RETENTION_COMMAND = 'partitions.retention';

export interface RetentionReport {
  applied: boolean;
  now: string;
  retention_days: { audit: number; delivery: number };
  partitions: { table: string; partition: string; from: string; to: string; rows_estimate: number | null }[];
}

export async function runRetention(deps: AppDeps, apply: boolean): Promise<RetentionReport> {
  const now = deps.clock.now();
  const em = deps.orm.em.fork();
  const expired = await expiredPartitions(em, now, deps.partitions.retentionDays);
  if (apply) await dropExpiredPartitions(em, expired);
  return {
    applied: apply,
    now: now.toISOString(),
    retention_days: { ...deps.partitions.retentionDays },
    partitions: expired.map((p) => ({ table: p.table, partition: p.partition, from: p.from, to: p.to, rows_estimate: p.rowsEstimate })),
  };
}
