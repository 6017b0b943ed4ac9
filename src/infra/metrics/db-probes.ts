// Gauges read from PostgreSQL (or PGlite) at scrape time: the nudge outbox and the pg-boss queues,
// plus the ORM's connection pool (in-process counts, no query).
//
// A scrape must not pile queries onto a struggling database: one probe runs at a time, its result
// serves every scrape for PROBE_TTL_MS, and a scrape waits for a running probe at most
// PROBE_WAIT_MS before it answers with the last values (a probe that failed or overran is counted
// in fluxdesk_metrics_probe_failures_total).
import type { MikroORM } from '@mikro-orm/core';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock, Logger } from '../../domain/context.js';

const PROBE_TTL_MS = 5_000;
const PROBE_WAIT_MS = 1_000;
/**
 * The outbox has no index (it is a queue: insert, claim, delete); the scan is capped. It holds a few
 * seconds of nudges when the worker keeps up; past this many rows both figures are lower bounds.
 */
export const OUTBOX_SCAN_CAP = 100_000;

interface ProbeResult {
  outboxDepth: number;
  /** Seconds since the oldest row was written (service clock); 0 when empty. */
  outboxOldestAgeSeconds: number;
  /** pg-boss's own per-queue counts (pgboss.queue, kept by its monitor); empty without a worker. */
  queues: Array<{ name: string; ready: number; deferred: number; active: number; failed: number }>;
}

const EMPTY: ProbeResult = { outboxDepth: 0, outboxOldestAgeSeconds: 0, queues: [] };

interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options?: { max?: number };
}

export function registerDbGauges(registry: Registry, o: { orm: MikroORM; clock: Clock; log: Logger }): void {
  const conn = o.orm.em.getConnection();
  const failures = new Counter({
    name: 'fluxdesk_metrics_probe_failures_total',
    help: 'Scrape-time database probes that failed or overran (their gauges kept the last values).',
    registers: [registry],
  });
  let last: ProbeResult = EMPTY;
  let lastAt = -Infinity;
  let running: Promise<ProbeResult> | null = null;

  const probe = async (): Promise<ProbeResult> => {
    const [outbox, queues] = await Promise.all([
      conn.execute<Array<{ n: number; oldest: Date | string | null }>>(
        `select count(*)::int as n, min(created_at) as oldest from (select created_at from nudge_outbox limit ${OUTBOX_SCAN_CAP}) o`,
      ),
      // pgboss.* exists once a worker has started (WORKER=on here or in another process).
      conn
        .execute<Array<{ name: string; ready: number; deferred: number; active: number; failed: number }>>(
          `select name, ready_count as ready, deferred_count as deferred, active_count as active, failed_count as failed from pgboss.queue`,
        )
        .catch((err: { code?: string; message?: string }) => {
          if (err.code === '42P01' || err.code === '3F000' || /does not exist/.test(err.message ?? '')) return [];
          throw err;
        }),
    ]);
    type QueueRow = { name: string; ready: number; deferred: number; active: number; failed: number };
    const oldest = outbox[0]?.oldest ? new Date(outbox[0].oldest).getTime() : null;
    return {
      outboxDepth: Number(outbox[0]?.n ?? 0),
      outboxOldestAgeSeconds: oldest === null ? 0 : Math.max(0, (o.clock.now().getTime() - oldest) / 1000),
      queues: (queues as QueueRow[]).map((q) => ({
        name: q.name,
        ready: Number(q.ready),
        deferred: Number(q.deferred),
        active: Number(q.active),
        failed: Number(q.failed),
      })),
    };
  };

  const read = async (): Promise<ProbeResult> => {
    if (Date.now() - lastAt < PROBE_TTL_MS) return last;
    running ??= probe().then(
      (r) => {
        last = r;
        lastAt = Date.now();
        running = null;
        return r;
      },
      (err: unknown) => {
        failures.inc();
        o.log.debug({ err: { message: (err as Error).message } }, 'metrics probe failed');
        // Not again before the TTL: a failing database is not asked on every scrape.
        lastAt = Date.now();
        running = null;
        return last;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const overran = new Promise<null>((r) => {
      timer = setTimeout(() => r(null), PROBE_WAIT_MS);
      timer.unref();
    });
    const r = await Promise.race([running, overran]);
    clearTimeout(timer);
    if (r === null) failures.inc();
    return r ?? last;
  };

  new Gauge({
    name: 'fluxdesk_nudge_outbox_depth',
    help: `Nudges in the outbox (waiting for their first send or claimed for it; capped at ${OUTBOX_SCAN_CAP}).`,
    registers: [registry],
    async collect() {
      this.set((await read()).outboxDepth);
    },
  });
  new Gauge({
    name: 'fluxdesk_nudge_outbox_oldest_age_seconds',
    help: 'Age of the oldest nudge in the outbox (0 when empty).',
    registers: [registry],
    async collect() {
      this.set((await read()).outboxOldestAgeSeconds);
    },
  });
  new Gauge({
    name: 'fluxdesk_job_queue_jobs',
    help: 'Jobs per pg-boss queue and state (ready, deferred, active, failed), as pg-boss last counted them.',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      const { queues } = await read();
      this.reset();
      for (const q of queues) {
        this.labels(q.name, 'ready').set(q.ready);
        this.labels(q.name, 'deferred').set(q.deferred);
        this.labels(q.name, 'active').set(q.active);
        this.labels(q.name, 'failed').set(q.failed);
      }
    },
  });

  // pg-pool's counts (PostgreSQL); PGlite has one connection and no pool.
  const pool = async (): Promise<PoolCounts | null> => {
    const p = (await (conn as unknown as { getNativeClient(): Promise<unknown> }).getNativeClient().catch(() => null)) as PoolCounts | null;
    return p && typeof p.totalCount === 'number' ? p : null;
  };
  new Gauge({
    name: 'fluxdesk_db_pool_connections',
    help: 'PostgreSQL pool connections by state (in_use, idle); the pool opens up to DB_POOL_MAX.',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const p = await pool();
      this.labels('in_use').set(p ? p.totalCount - p.idleCount : 0);
      this.labels('idle').set(p ? p.idleCount : 0);
    },
  });
  new Gauge({
    name: 'fluxdesk_db_pool_waiting',
    help: 'Queries waiting for a free PostgreSQL pool connection.',
    registers: [registry],
    async collect() {
      this.set((await pool())?.waitingCount ?? 0);
    },
  });
  new Gauge({
    name: 'fluxdesk_db_pool_max',
    help: 'Size limit of the PostgreSQL pool (DB_POOL_MAX).',
    registers: [registry],
    async collect() {
      this.set((await pool())?.options?.max ?? 1);
    },
  });
}
