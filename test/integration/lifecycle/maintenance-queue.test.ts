// The maintenance runner (src/infra/queue/maintenance-queue.ts): every registered task runs through
// the real pg-boss queue, once per period across all processes sharing the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, startHarness, type Harness } from '../../helpers/harness.js';
import { MaintenanceQueue, type PeriodicJob } from '../../../src/infra/queue/maintenance-queue.js';
import { MAINTENANCE_TASKS } from '../../../src/app/maintenance-tasks.js';
import type { Logger } from '../../../src/domain/context.js';

const silent: Logger = { info() {}, warn() {}, error() {}, debug() {}, child: () => silent };

/** Polls an async condition (job completion is asynchronous work, not a time rule). */
async function until(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('two processes, one database', () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  const queues: MaintenanceQueue[] = [];
  const runs = { a: 0, b: 0 };
  const runsBy: Record<string, string[]> = { a: [], b: [] };

  // A period far longer than the test: the slot cannot roll over between ticks.
  const jobs = (proc: string): PeriodicJob[] => [
    {
      name: 'test.task-a',
      everySeconds: 10 * 365 * 86_400,
      run: async () => {
        runs.a++;
        runsBy.a!.push(proc);
      },
    },
    {
      name: 'test.task-b',
      everySeconds: 10 * 365 * 86_400,
      run: async () => {
        runs.b++;
        runsBy.b!.push(proc);
      },
    },
  ];

  beforeAll(async () => {
    db = await createDatabase();
  });
  afterAll(async () => {
    for (const q of queues) await q.stop();
    await db?.drop();
  });

  it('runs each task once per period, not once per process', async () => {
    // Two "processes" start at the same moment; each ticks at start (and every tickSeconds).
    const p1 = new MaintenanceQueue({ orm: null as never, databaseUrl: db.url, log: silent, jobs: jobs('p1'), tickSeconds: 3600 });
    const p2 = new MaintenanceQueue({ orm: null as never, databaseUrl: db.url, log: silent, jobs: jobs('p2'), tickSeconds: 3600 });
    queues.push(p1, p2);
    await Promise.all([p1.start(), p2.start()]);
    await until(async () => {
      const s = await p1.states();
      return s['test.task-a']?.completed === 1 && s['test.task-b']?.completed === 1;
    }, 'both tasks to complete');
    expect(runs).toEqual({ a: 1, b: 1 });

    // Further ticks in the same period, from either process, create no job.
    for (let i = 0; i < 3; i++) {
      expect(await p1.tick()).toEqual([]);
      expect(await p2.tick()).toEqual([]);
    }
    const states = await p2.states();
    expect(states['test.task-a']).toEqual({ completed: 1 });
    expect(states['test.task-b']).toEqual({ completed: 1 });
    expect(runs).toEqual({ a: 1, b: 1 });
  });

  it('a failing run is recorded as a failed job and retried within its period', async () => {
    let calls = 0;
    const flaky = new MaintenanceQueue({
      orm: null as never,
      databaseUrl: db.url,
      log: silent,
      retryLimit: 0,
      tickSeconds: 3600,
      jobs: [
        {
          name: 'test.flaky',
          everySeconds: 10 * 365 * 86_400,
          run: async () => {
            calls++;
            throw new Error('boom');
          },
        },
      ],
    });
    queues.push(flaky);
    await flaky.start();
    await until(async () => (await flaky.states())['test.flaky']?.failed === 1, 'the failed job');
    expect(calls).toBe(1);
    // Its slot is used: no second run this period.
    expect(await flaky.tick()).toEqual([]);
  });
});

describe('the service (WORKER=on)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('starts the runner with every registered task and runs each at start', async () => {
    const m = h.svc.maintenance;
    expect(m).not.toBeNull();
    const names = MAINTENANCE_TASKS.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['tokens.inactivity-scan', 'mail.outbox']));
    await until(async () => {
      const s = await m!.states();
      return names.every((n) => (s[n]?.completed ?? 0) + (s[n]?.failed ?? 0) >= 1);
    }, 'every task to run once');
    // (A task with a short period, e.g. mail.outbox every 60 s, may already have run again.)
    const s = await m!.states();
    for (const n of names) expect(s[n]).toEqual({ completed: expect.any(Number) });
  });
});

describe('embedded (PGlite)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ mode: 'embedded' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('runs every registered task once through pg-boss on the PGlite connection', async () => {
    const m = h.svc.maintenance!;
    const names = MAINTENANCE_TASKS.map((t) => t.name);
    await until(
      async () => {
        const s = await m.states();
        return names.every((n) => (s[n]?.completed ?? 0) + (s[n]?.failed ?? 0) >= 1);
      },
      'every task to run once',
      60_000,
    );
    const s = await m.states();
    for (const n of names) expect(s[n]).toEqual({ completed: expect.any(Number) });
  }, 90_000);
});
