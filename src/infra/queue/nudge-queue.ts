// Nudge dispatch (README "Nudges", "Delivery"): a transactional outbox sent straight from
// `nudge_outbox` under a lease, with pg-boss holding only the nudges whose first attempt failed.
//  publish statement --(same commit)--> nudge_outbox --claim (lease)--> send --> row deleted (+ on
//  failure a pg-boss retry job, same transaction) --> pg-boss worker: send again, backoff, ...
// A claim is one UPDATE stamping `lease_until` (`for update skip locked`); a settle is one DELETE by
// row version plus the retry jobs, whose job id is the outbox row id (a replay adds no second job).
// Parked rows (reason `snooze` or `summary`) keep `lease_until = infinity` and are leased through
// `parked_lease_until`, and their retry jobs go to their own queue: the previous release's claim
// and its `nudges` worker never see them (docs/migrations.md "Nudge outbox: parked rows").
import { PgBoss, fromPglite, type Db, type JobResult, type JobWithMetadata } from 'pg-boss';
import type { MikroORM } from '@mikro-orm/core';
import type { Logger } from '../../domain/context.js';
import { YIELD_BATCH, YIELD_PAUSE_MS, type DispatchPacer } from './dispatch-pacer.js';

import type { NudgeReason } from '../../domain/nudges/nudge.rules.js';
import { PARKED_OUTBOX_LEASE } from '../../domain/nudges/nudges.repository.js';

export const NUDGE_QUEUE = 'nudges';
/** Retries of parked rows (any reason but `event`): the previous release works `nudges` only. */
export const NUDGE_PARKED_QUEUE = 'nudges-parked';
const QUEUES = [NUDGE_QUEUE, NUDGE_PARKED_QUEUE];
const queueOf = (reason: NudgeReason) => (reason === 'event' ? NUDGE_QUEUE : NUDGE_PARKED_QUEUE);

export interface NudgeJobData {
  deliveryId: string;
  userId: string;
  channel: 'push' | 'chat';
  /** Why: an arrival (`event`, also when absent), a snoozed row that came back (`snooze`) or a quiet hours summary (`summary`). */
  reason?: NudgeReason;
  /** A summary's held counts per severity (deliveryId is then the summary's id). */
  summary?: Record<string, number> | null;
  /** Attempts made before this job was queued (the first one, from the outbox). */
  priorAttempts?: number;
}

export interface QueuedNudge extends NudgeJobData {
  id: string;
  reason: NudgeReason;
  attempt: number;
  lastAttempt: boolean;
  /** The least delay before the next attempt should this one fail (the delivery trace shows it). */
  retryInSeconds?: number;
}

export type QueuedOutcome = { id: string; status: 'completed' } | { id: string; status: 'failed' | 'dead'; error: string };

export interface NudgeQueueOptions {
  orm: MikroORM;
  /** PostgreSQL; absent = embedded PGlite (the ORM's own instance). */
  databaseUrl?: string;
  log: Logger;
  handle: (jobs: QueuedNudge[]) => Promise<QueuedOutcome[]>;
  /** Retries after the first attempt (the first from the outbox, the rest through pg-boss). */
  retryLimit: number;
  /** First retry delay; doubles (with jitter) per retry up to retryDelayMaxSeconds. */
  retryDelaySeconds: number;
  retryDelayMaxSeconds: number;
  /** A claimed nudge (or an active retry job) whose worker died is sent again after this long. */
  expireInSeconds: number;
  /** Nudges per claim (or retry-job fetch) and parallel loops of each (a batch is sent in parallel). */
  batchSize: number;
  concurrency: number;
  /** Outbox poll interval after a claim that did not fill a batch. */
  pollIntervalMs: number;
  poolMax: number;
  /** Yields to request handling while the process is busy (absent: always full speed). */
  pacer?: DispatchPacer;
  /** Called after the worker stopped (release senders' sockets). */
  onStopped?: () => Promise<void> | void;
}

interface Tx {
  db: Db;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

interface PgliteLike {
  transaction<T>(fn: (tx: { query(text: string, values?: unknown[]): Promise<{ rows: any[] }> }) => Promise<T>): Promise<T>;
}

export interface NudgeCounts {
  outbox: number;
  queued: number;
  active: number;
  failed: number;
  completed: number;
}

export class NudgeQueue {
  private boss!: PgBoss;
  private pglite: PgliteLike | null = null;
  private stopping = false;
  private loopsDone: Promise<unknown> | null = null;
  private readonly wakers = new Set<() => void>();
  /** Outbox claims made at full speed and while yielding to requests (tests, the bench, operators). */
  readonly claims = { full: 0, yield: 0 };

  constructor(private readonly o: NudgeQueueOptions) {}

  async start(): Promise<void> {
    const common = {
      schema: 'pgboss',
      schedule: false,
      supervise: true,
      migrate: true,
      superviseIntervalSeconds: Math.max(1, Math.min(60, this.o.expireInSeconds)),
      monitorIntervalSeconds: Math.max(1, Math.min(60, this.o.expireInSeconds)),
    };
    // PostgreSQL: pg-boss's own small pool, which the claims and settles use too. Embedded: the one
    // PGlite connection, through pg-boss's adapter.
    if (this.o.databaseUrl) {
      this.boss = new PgBoss({ ...common, connectionString: this.o.databaseUrl, max: this.o.poolMax, application_name: 'fluxdesk-nudges' });
    } else {
      const pglite = (await (this.o.orm.em.getConnection() as unknown as { getNativeClient(): Promise<unknown> }).getNativeClient()) as PgliteLike;
      this.pglite = pglite;
      this.boss = new PgBoss({ ...common, db: fromPglite(pglite as never), backend: 'pglite' });
    }
    this.boss.on('error', (err) => this.o.log.warn({ err: { message: (err as Error).message } }, 'job queue error'));
    await this.boss.start();
    const policy = {
      retryLimit: this.o.retryLimit,
      retryDelay: this.o.retryDelaySeconds,
      retryBackoff: true,
      retryDelayMax: this.o.retryDelayMaxSeconds,
      expireInSeconds: this.o.expireInSeconds,
      // Completed and failed jobs are kept a day (failures stay listed in nudge_failures).
      deleteAfterSeconds: 86_400,
    };
    // Both queues have the same policy: a parked row's retries back off as an arrival's do.
    for (const queue of QUEUES) {
      await this.boss.createQueue(queue, policy);
      // createQueue keeps an existing queue's settings: apply the configured policy.
      await this.boss.updateQueue(queue, policy);
      // Loads the queue into pg-boss's cache now, so an insert inside a settle transaction never
      // needs a second connection (on PGlite that would wait for the transaction itself).
      await this.boss.insert(queue, []);
    }
    for (const queue of QUEUES) {
      await this.boss.work<
        NudgeJobData,
        unknown,
        { batchSize: number; includeMetadata: true; perJobResults: true; pollingIntervalSeconds: number; localConcurrency: number; burstWhenBatchFull: true }
      >(
        queue,
        // Only retries are queued, each with a start time: polling picks them up as they come due.
        {
          batchSize: this.o.batchSize,
          includeMetadata: true,
          perJobResults: true,
          pollingIntervalSeconds: 1,
          localConcurrency: this.o.concurrency,
          burstWhenBatchFull: true,
        },
        (jobs) => this.run(jobs),
      );
    }
    this.loopsDone = Promise.all(Array.from({ length: this.o.concurrency }, (_, i) => this.dispatchLoop(i)));
  }

  private async run(jobs: JobWithMetadata<NudgeJobData>[]): Promise<JobResult[]> {
    const outcomes = await this.o.handle(
      jobs.map((j) => ({
        id: j.id,
        deliveryId: j.data.deliveryId,
        userId: j.data.userId,
        channel: j.data.channel,
        reason: j.data.reason ?? 'event',
        summary: j.data.summary ?? null,
        attempt: (j.data.priorAttempts ?? 0) + j.retryCount + 1,
        lastAttempt: j.retryCount >= j.retryLimit,
        retryInSeconds: this.leastRetryDelay(j.retryCount),
      })),
    );
    // `deadletter` fails the job terminally (no retries left to spend on a receiver that refused it).
    return outcomes.map((r) =>
      r.status === 'completed'
        ? { id: r.id, status: 'completed' }
        : { id: r.id, status: r.status === 'dead' ? 'deadletter' : 'failed', output: { error: r.error } },
    );
  }

  /**
   * Claims up to `limit` (default batchSize) unclaimed (or lease-expired) outbox rows, sends them,
   * and settles them: returns how many were claimed. A settle that fails leaves the rows claimed;
   * they are sent again when the lease ends.
   *
   * An `event` row's lease is `lease_until`, as in the previous release. A parked row (any other
   * reason) keeps `lease_until = infinity`, which the previous release's claim never selects, and
   * has its lease in `parked_lease_until` (NULL = unclaimed). One scan of the table (it has no
   * index: a queue), stopping at `limit` rows as before; a parked row found with another
   * `lease_until` is parked by its claim.
   */
  async dispatchOnce(limit = this.o.batchSize): Promise<number> {
    const { rows } = await this.boss.getDb().executeSql(
      `update nudge_outbox o
          set lease_until = case when o.reason = 'event' then now() + make_interval(secs => $2) else ${PARKED_OUTBOX_LEASE} end,
              parked_lease_until = case when o.reason = 'event' then null else now() + make_interval(secs => $2) end,
              attempts = o.attempts + 1
         from (select ctid from nudge_outbox
                where lease_until is null or lease_until < now()
                   or (lease_until = ${PARKED_OUTBOX_LEASE} and (parked_lease_until is null or parked_lease_until < now()))
                limit $1 for update skip locked) s
        where o.ctid = s.ctid
        returning o.ctid::text as tid, o.id, o.delivery_id, o.user_id, o.channel, o.reason, o.summary, o.attempts`,
      [limit, this.o.expireInSeconds],
    );
    const claimed = rows as Claimed[];
    if (claimed.length === 0) return 0;
    const outcomes = await this.o.handle(
      claimed.map((r) => ({
        id: r.id,
        deliveryId: r.delivery_id,
        userId: r.user_id,
        channel: r.channel,
        reason: r.reason,
        summary: r.summary,
        attempt: r.attempts,
        lastAttempt: r.attempts > this.o.retryLimit,
        // The settle queues the retry job with exactly this start delay.
        retryInSeconds: this.o.retryDelaySeconds,
      })),
    );
    await this.settle(claimed, outcomes);
    return claimed.length;
  }

  /**
   * pg-boss's backoff for a job failing at `retryCount` (plans.js: delay * 2^(n+1)/2 plus up to as
   * much again at random, capped at retryDelayMax): its least value.
   */
  private leastRetryDelay(retryCount: number): number {
    return Math.min(this.o.retryDelayMaxSeconds, Math.max(this.o.retryDelaySeconds, 1) * (2 ** Math.min(16, retryCount + 1) / 2));
  }

  /**
   * Deletes the claimed rows (by row version) and queues a retry job for each failed one, in one
   * transaction: an `event` row's in `nudges`, a parked row's in `nudges-parked`.
   */
  private async settle(claimed: Claimed[], outcomes: QueuedOutcome[]): Promise<void> {
    const failed = new Set(outcomes.filter((r) => r.status === 'failed').map((r) => r.id));
    const tx = await this.begin();
    try {
      await tx.db.executeSql(`delete from nudge_outbox where ctid = any($1::tid[]) and id = any($2::uuid[])`, [
        claimed.map((r) => r.tid),
        claimed.map((r) => r.id),
      ]);
      for (const queue of QUEUES) {
        const retries = claimed.filter((r) => failed.has(r.id) && queueOf(r.reason) === queue);
        if (retries.length === 0) continue;
        await this.boss.insert(
          queue,
          retries.map((r) => ({
            id: r.id,
            data: { deliveryId: r.delivery_id, userId: r.user_id, channel: r.channel, reason: r.reason, summary: r.summary, priorAttempts: r.attempts },
            retryLimit: Math.max(0, this.o.retryLimit - r.attempts),
            startAfter: this.o.retryDelaySeconds,
          })),
          { db: tx.db },
        );
      }
      await tx.commit();
    } catch (err) {
      await tx.rollback();
      throw err;
    }
  }

  private async begin(): Promise<Tx> {
    if (!this.pglite) {
      const db = this.boss.getDb();
      if (!db.beginTransaction) throw new Error('job queue database has no transactions');
      return db.beginTransaction();
    }
    // PGlite: an exclusive transaction held open until commit or rollback settles it.
    const pglite = this.pglite;
    return new Promise<Tx>((resolveTx, rejectTx) => {
      let settle!: (commit: boolean) => void;
      const outcome = new Promise<boolean>((r) => (settle = r));
      const done = pglite
        .transaction(async (t) => {
          resolveTx({
            db: { executeSql: (text, values) => t.query(text, values) },
            commit: async () => {
              settle(true);
              await done;
            },
            rollback: async () => {
              settle(false);
              await done.catch(() => undefined);
            },
          });
          if (!(await outcome)) throw new RollbackSignal();
        })
        .catch((err) => {
          if (!(err instanceof RollbackSignal)) rejectTx(err);
          if (!(err instanceof RollbackSignal)) throw err;
        });
    });
  }

  /**
   * One dispatch loop. While the pacer says the process is busy serving requests, only loop 0
   * runs, with claims of YIELD_BATCH and a YIELD_PAUSE_MS pause after each; the others wait.
   */
  private async dispatchLoop(index: number): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      const yielding = this.o.pacer?.mode() === 'yield';
      if (yielding && index > 0) {
        await this.sleep(YIELD_PAUSE_MS);
        continue;
      }
      const limit = yielding ? Math.min(YIELD_BATCH, this.o.batchSize) : this.o.batchSize;
      this.claims[yielding ? 'yield' : 'full']++;
      let claimed = 0;
      try {
        claimed = await this.dispatchOnce(limit);
        failures = 0;
      } catch (err) {
        // Database down or restarting: rows stay in the outbox (claimed ones until their lease ends).
        if (failures++ % 20 === 0) this.o.log.warn({ err: { message: (err as Error).message } }, 'nudge dispatch failed; retrying');
      }
      if (this.stopping) break;
      if (claimed < limit) await this.sleep(failures > 0 ? Math.min(5000, this.o.pollIntervalMs * 2 ** Math.min(failures, 5)) : this.o.pollIntervalMs);
      else if (yielding) await this.sleep(YIELD_PAUSE_MS);
    }
  }

  /** Waits `ms`, or less when the queue stops. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((r) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        r();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  /** Queue counts for tests, the bench and operators: outbox rows (claimed or not, parked or not) and retry jobs of both queues by state. */
  async counts(): Promise<NudgeCounts> {
    const db = this.boss.getDb();
    const { rows: o } = await db.executeSql(`select count(*)::int as n from nudge_outbox`);
    const { rows } = await db.executeSql(`select state, count(*)::int as n from pgboss.job where name = any($1::text[]) group by state`, [QUEUES]);
    const by = Object.fromEntries(rows.map((r: { state: string; n: number }) => [r.state, Number(r.n)]));
    return {
      outbox: Number(o[0]?.n ?? 0),
      queued: (by.created ?? 0) + (by.retry ?? 0),
      active: by.active ?? 0,
      failed: by.failed ?? 0,
      completed: by.completed ?? 0,
    };
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const wake of [...this.wakers]) wake();
    await this.loopsDone?.catch(() => undefined);
    await this.boss
      ?.stop({ graceful: true, timeout: 10_000, close: true })
      .catch((err) => this.o.log.warn({ err: { message: (err as Error).message } }, 'job queue stop failed'));
    await this.o.onStopped?.();
  }
}

class RollbackSignal extends Error {}

interface Claimed {
  /** Row version claimed (the settle deletes exactly it). */
  tid: string;
  id: string;
  delivery_id: string;
  user_id: string;
  channel: 'push' | 'chat';
  reason: NudgeReason;
  summary: Record<string, number> | null;
  /** Attempts including this one. */
  attempts: number;
}
