// The nudge job queue: pg-boss (PostgreSQL job queue: retries with exponential backoff, terminal
// `failed` state) fed from the transactional outbox.
//
//  publish statement --(same commit)--> nudge_outbox --relay--> pg-boss queue `nudges` --worker--> chat / push
//
// The relay moves outbox rows into pg-boss in ONE transaction: it deletes the rows and inserts the
// jobs through that transaction's connection (pg-boss's `db` option), so a row is either still in
// the outbox or a job, never both and never neither, whatever moment the process dies at. The job
// id is the outbox row id, and pg-boss inserts with ON CONFLICT DO NOTHING, so even a replayed
// move cannot create a second job. After a crash between commit and dispatch the rows (or queued
// jobs) are simply picked up by the next process: each nudge is sent once. A crash DURING a send
// makes pg-boss retry that job when it expires (at least once): every request carries the
// idempotency id `<deliveryId>:<channel>` so a receiver can dedupe.
//
// PostgreSQL: pg-boss has its own small pool on DATABASE_URL. Embedded PGlite: pg-boss runs on the
// same single PGlite connection through its `fromPglite` adapter (backend `pglite`); the relay's
// transaction is PGlite's exclusive transaction.
import { PgBoss, fromPglite, type Db, type JobResult, type JobWithMetadata } from 'pg-boss';
import type { MikroORM } from '@mikro-orm/core';
import type { Logger } from '../../domain/context.js';

export const NUDGE_QUEUE = 'nudges';

export interface NudgeJobData {
  deliveryId: string;
  userId: string;
  channel: 'push' | 'chat';
}

export interface QueuedNudge extends NudgeJobData {
  id: string;
  attempt: number;
  lastAttempt: boolean;
}

export type QueuedOutcome = { id: string; status: 'completed' } | { id: string; status: 'failed' | 'dead'; error: string };

export interface NudgeQueueOptions {
  orm: MikroORM;
  /** PostgreSQL; absent = embedded PGlite (the ORM's own instance). */
  databaseUrl?: string;
  log: Logger;
  handle: (jobs: QueuedNudge[]) => Promise<QueuedOutcome[]>;
  /** Retries after the first attempt (pg-boss retryLimit). */
  retryLimit: number;
  /** First retry delay; doubles (with jitter) per retry up to retryDelayMaxSeconds. */
  retryDelaySeconds: number;
  retryDelayMaxSeconds: number;
  /** An active job whose worker died is retried after this long. */
  expireInSeconds: number;
  /** Jobs per fetch and parallel fetchers (each batch is sent in parallel). */
  batchSize: number;
  concurrency: number;
  /** Outbox poll interval when it was found empty. */
  relayIntervalMs: number;
  relayBatch: number;
  poolMax: number;
  /** Called after the worker stopped (release senders' sockets). */
  onStopped?: () => void;
}

interface Tx {
  db: Db;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

interface PgliteLike {
  transaction<T>(fn: (tx: { query(text: string, values?: unknown[]): Promise<{ rows: any[] }> }) => Promise<T>): Promise<T>;
}

export class NudgeQueue {
  private boss!: PgBoss;
  private pglite: PgliteLike | null = null;
  private stopping = false;
  private relayDone: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private relayFailures = 0;

  constructor(private readonly o: NudgeQueueOptions) {}

  async start(): Promise<void> {
    const common = { schema: 'pgboss', schedule: false, supervise: true, migrate: true, superviseIntervalSeconds: Math.max(1, Math.min(60, this.o.expireInSeconds)), monitorIntervalSeconds: Math.max(1, Math.min(60, this.o.expireInSeconds)) };
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
    await this.boss.createQueue(NUDGE_QUEUE, policy);
    // createQueue keeps an existing queue's settings: apply the configured policy.
    await this.boss.updateQueue(NUDGE_QUEUE, policy);
    // Loads the queue into pg-boss's cache now, so an insert inside the relay transaction never
    // needs a second connection (on PGlite that would wait for the transaction itself).
    await this.boss.insert(NUDGE_QUEUE, []);
    await this.boss.work<NudgeJobData, unknown, { batchSize: number; includeMetadata: true; perJobResults: true; pollingIntervalSeconds: number; localConcurrency: number; burstWhenBatchFull: true }>(
      NUDGE_QUEUE,
      // The relay wakes the worker when it queued jobs; polling only picks up retries coming due.
      { batchSize: this.o.batchSize, includeMetadata: true, perJobResults: true, pollingIntervalSeconds: 1, localConcurrency: this.o.concurrency, burstWhenBatchFull: true },
      (jobs) => this.run(jobs),
    );
    this.relayDone = this.relayLoop();
  }

  private async run(jobs: JobWithMetadata<NudgeJobData>[]): Promise<JobResult[]> {
    const outcomes = await this.o.handle(
      jobs.map((j) => ({ id: j.id, ...j.data, attempt: j.retryCount + 1, lastAttempt: j.retryCount >= j.retryLimit })),
    );
    // `deadletter` fails the job terminally (no retries left to spend on a receiver that refused it).
    return outcomes.map((r) => (r.status === 'completed' ? { id: r.id, status: 'completed' } : { id: r.id, status: r.status === 'dead' ? 'deadletter' : 'failed', output: { error: r.error } }));
  }

  /** Moves up to relayBatch outbox rows into the queue in one transaction; returns how many. */
  async relayOnce(): Promise<number> {
    const tx = await this.begin();
    try {
      const { rows } = await tx.db.executeSql(
        `delete from nudge_outbox o using (select ctid from nudge_outbox limit $1 for update skip locked) s where o.ctid = s.ctid returning o.id, o.delivery_id, o.user_id, o.channel`,
        [this.o.relayBatch],
      );
      if (rows.length > 0) {
        await this.boss.insert(
          NUDGE_QUEUE,
          rows.map((r: { id: string; delivery_id: string; user_id: string; channel: 'push' | 'chat' }) => ({ id: r.id, data: { deliveryId: r.delivery_id, userId: r.user_id, channel: r.channel } })),
          { db: tx.db },
        );
      }
      await tx.commit();
      return rows.length;
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

  private async relayLoop(): Promise<void> {
    while (!this.stopping) {
      let moved = 0;
      try {
        moved = await this.relayOnce();
        this.relayFailures = 0;
        if (moved > 0) this.wakeWorkers();
      } catch (err) {
        // Database down or restarting: rows stay in the outbox; try again later.
        if (this.relayFailures++ % 20 === 0) this.o.log.warn({ err: { message: (err as Error).message } }, 'nudge relay failed; retrying');
      }
      if (moved < this.o.relayBatch && !this.stopping) {
        const backoff = this.relayFailures > 0 ? Math.min(5000, this.o.relayIntervalMs * 2 ** Math.min(this.relayFailures, 5)) : this.o.relayIntervalMs;
        await new Promise<void>((r) => {
          const timer = setTimeout(r, backoff);
          this.wake = () => {
            clearTimeout(timer);
            r();
          };
        });
        this.wake = null;
      }
    }
  }

  /** Every local fetcher of the queue (localConcurrency of them) fetches now instead of at its next poll. */
  private wakeWorkers(): void {
    for (const w of this.boss.getWipData()) if (w.name === NUDGE_QUEUE) this.boss.notifyWorker(w.id);
  }

  /** Queue counts for tests, the bench and operators. */
  async counts(): Promise<{ outbox: number; queued: number; active: number; failed: number; completed: number }> {
    const db = this.boss.getDb();
    const { rows: o } = await db.executeSql(`select count(*)::int as n from nudge_outbox`);
    const { rows } = await db.executeSql(`select state, count(*)::int as n from pgboss.job where name = $1 group by state`, [NUDGE_QUEUE]);
    const by = Object.fromEntries(rows.map((r: { state: string; n: number }) => [r.state, Number(r.n)]));
    return { outbox: Number(o[0]?.n ?? 0), queued: (by.created ?? 0) + (by.retry ?? 0), active: by.active ?? 0, failed: by.failed ?? 0, completed: by.completed ?? 0 };
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.wake?.();
    await this.relayDone?.catch(() => undefined);
    await this.boss?.stop({ graceful: true, timeout: 10_000, close: true }).catch((err) => this.o.log.warn({ err: { message: (err as Error).message } }, 'job queue stop failed'));
    this.o.onStopped?.();
  }
}

class RollbackSignal extends Error {}
