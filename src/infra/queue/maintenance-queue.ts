// Periodic maintenance jobs (the app's MAINTENANCE_TASKS) through pg-boss, once per period across
// ALL processes sharing the database: every process ticks and sends one job per task with
// `singletonSeconds = everySeconds` and a fixed singletonKey, and pg-boss's unique index on (name,
// time slot, key) refuses a second job for the slot whatever state the first reached. Slots follow
// the database clock; the task reads `now` from the injected clock, so tests move time, not sleep.
// Not pg-boss cron (whole minutes only) nor self-rescheduling jobs (a lost link breaks the chain).
import { PgBoss, fromPglite, type Job } from 'pg-boss';
import type { MikroORM } from '@mikro-orm/core';
import type { Logger } from '../../domain/context.js';

export interface PeriodicJob {
  /** Stable task name, e.g. `tokens.inactivity-scan` (letters, digits, `_`, `-`, `.`). */
  name: string;
  /** The period: at most one run per slot of this many seconds. */
  everySeconds: number;
  run(): Promise<unknown>;
}

/**
 * A task every process runs on its own timer, for work due within seconds (a snooze's end): no
 * job per run. Its statement must be safe to run on several processes at once (row locks with
 * `skip locked`, a re-checked state): each due row is handled once whichever process takes it.
 */
export interface PollJob {
  name: string;
  everyMs: number;
  run(): Promise<unknown>;
}

export interface MaintenanceQueueOptions {
  orm: MikroORM;
  /** PostgreSQL; absent = embedded PGlite (the ORM's own instance). */
  databaseUrl?: string;
  log: Logger;
  jobs: readonly PeriodicJob[];
  /** Tasks run on this process's own timer (see PollJob). */
  pollers?: readonly PollJob[];
  /** How often this process offers each task's job for the current slot (default 30 s). */
  tickSeconds?: number;
  /** A run taking longer is considered dead and retried (default 15 min). */
  expireInSeconds?: number;
  /** Retries of a failed run within its slot (default 2, backing off from 60 s). */
  retryLimit?: number;
}

export const maintenanceQueueName = (task: string) => `maintenance/${task}`;
const SLOT_KEY = 'period';

export class MaintenanceQueue {
  private boss!: PgBoss;
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;
  private ticking: Promise<unknown> | null = null;
  private readonly pollTimers: NodeJS.Timeout[] = [];
  private readonly polling = new Set<Promise<unknown>>();

  constructor(private readonly o: MaintenanceQueueOptions) {
    for (const j of o.jobs) {
      if (!Number.isInteger(j.everySeconds) || j.everySeconds < 1) throw new Error(`maintenance task ${j.name}: everySeconds must be a positive integer`);
    }
  }

  async start(): Promise<void> {
    const common = { schema: 'pgboss', schedule: false, supervise: true, migrate: true, superviseIntervalSeconds: 60, monitorIntervalSeconds: 60 };
    if (this.o.databaseUrl) {
      this.boss = new PgBoss({ ...common, connectionString: this.o.databaseUrl, max: 2, application_name: 'fluxdesk-maintenance' });
    } else {
      const pglite = await (this.o.orm.em.getConnection() as unknown as { getNativeClient(): Promise<unknown> }).getNativeClient();
      this.boss = new PgBoss({ ...common, db: fromPglite(pglite as never), backend: 'pglite' });
    }
    this.boss.on('error', (err) => this.o.log.warn({ err: { message: (err as Error).message } }, 'maintenance queue error'));
    await this.boss.start();
    for (const job of this.o.jobs) {
      const queue = maintenanceQueueName(job.name);
      const policy = {
        retryLimit: this.o.retryLimit ?? 2,
        retryDelay: 60,
        retryBackoff: true,
        expireInSeconds: this.o.expireInSeconds ?? 900,
        // The slot's job must outlive the slot (a deleted record would let a late tick run the task
        // again); at least a week for the record.
        deleteAfterSeconds: Math.max(2 * job.everySeconds, 7 * 86_400),
      };
      await this.boss.createQueue(queue, policy);
      await this.boss.updateQueue(queue, policy);
      await this.boss.work(queue, { batchSize: 1, pollingIntervalSeconds: 5 }, (jobs: Job[]) => this.run(job, jobs));
    }
    await this.tick();
    for (const p of this.o.pollers ?? []) this.startPoller(p);
    const every = (this.o.tickSeconds ?? 30) * 1000;
    this.timer = setInterval(() => void this.tick(), every);
    this.timer.unref();
  }

  /** Runs `p` every everyMs, never two runs of it at once; a failure is logged and the next run tries again. */
  private startPoller(p: PollJob): void {
    let running = false;
    const timer = setInterval(() => {
      if (running || this.stopping) return;
      running = true;
      const run = p
        .run()
        .then((result) => {
          if ((result as { processed?: number } | undefined)?.processed) this.o.log.info({ task: p.name, result }, 'maintenance task done');
        })
        .catch((err) => this.o.log.warn({ task: p.name, err: { message: (err as Error).message } }, 'maintenance task failed'))
        .finally(() => {
          running = false;
          this.polling.delete(run);
        });
      this.polling.add(run);
    }, p.everyMs);
    timer.unref();
    this.pollTimers.push(timer);
  }

  private async run(job: PeriodicJob, _jobs: Job[]): Promise<void> {
    const started = Date.now();
    try {
      const result = await job.run();
      // Quiet when there was nothing to do (mail.outbox runs every minute).
      const worked = (result as { processed?: number } | undefined)?.processed !== 0;
      this.o.log[worked ? 'info' : 'debug']({ task: job.name, result, ms: Date.now() - started }, 'maintenance task done');
    } catch (err) {
      this.o.log.warn({ task: job.name, err: { message: (err as Error).message } }, 'maintenance task failed');
      throw err;
    }
  }

  /** Offers every task's job for the current slot; returns the tasks that got a new job. */
  async tick(): Promise<string[]> {
    if (this.stopping) return [];
    const pass = (async () => {
      const sent: string[] = [];
      for (const job of this.o.jobs) {
        if (this.stopping) break;
        try {
          const id = await this.boss.send(maintenanceQueueName(job.name), {}, { singletonSeconds: job.everySeconds, singletonKey: SLOT_KEY });
          if (id) sent.push(job.name);
        } catch (err) {
          this.o.log.warn({ task: job.name, err: { message: (err as Error).message } }, 'maintenance tick failed');
        }
      }
      // Run now rather than at the workers' next poll.
      if (sent.length > 0) for (const w of this.boss.getWipData()) if (sent.some((n) => w.name === maintenanceQueueName(n))) this.boss.notifyWorker(w.id);
      return sent;
    })();
    this.ticking = pass;
    return pass;
  }

  /** Job states per task (tests and operators). */
  async states(): Promise<Record<string, Record<string, number>>> {
    const { rows } = await this.boss
      .getDb()
      .executeSql(`select name, state, count(*)::int as n from pgboss.job where name = any($1::text[]) group by name, state`, [
        this.o.jobs.map((j) => maintenanceQueueName(j.name)),
      ]);
    const out: Record<string, Record<string, number>> = Object.fromEntries(this.o.jobs.map((j) => [j.name, {}]));
    for (const r of rows as { name: string; state: string; n: number }[]) out[r.name.slice('maintenance/'.length)]![r.state] = Number(r.n);
    return out;
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    for (const t of this.pollTimers) clearInterval(t);
    await Promise.all(this.polling);
    await this.ticking?.catch(() => undefined);
    await this.boss
      ?.stop({ graceful: true, timeout: 10_000, close: true })
      .catch((err) => this.o.log.warn({ err: { message: (err as Error).message } }, 'maintenance queue stop failed'));
  }
}
