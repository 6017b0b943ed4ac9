// `npm run bench:partition-convert`: the live conversion of audit_log into monthly partitions
// (src/infra/db/partition-conversion.ts) on a database holding CONVERT_ROWS audit rows (default 5 M,
// filled with generate_series over the last six months), with the service publishing at a steady
// CONVERT_RATE events/s (default 100) all along. Reports the migration's time (it holds the trigger's
// lock until it commits), the backfill's, the swap's lock (waited and held), and publish latency
// (p50 / p99 / max) per phase: trigger on before the backfill, during the backfill, the second
// around the swap, and after (partitioned, no trigger).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDatabase } from '../test/helpers/harness.js';
import { openOrm } from '../src/infra/db/orm.js';
import { advanceConversion } from '../src/infra/db/partition-conversion.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import { runBench, startBenchServer, percentile } from './service.js';

const num = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt);
const ROWS = num('CONVERT_ROWS', 5_000_000);
const RATE = num('CONVERT_RATE', 100);
const TOKENS = num('CONVERT_TOKENS', 400);
const PHASE_S = num('CONVERT_PHASE_S', 15);
const BATCH_BLOCKS = num('CONVERT_BATCH_BLOCKS', 500);
/** Seconds of load before the measured phases (the new service's pools, caches and JIT warm up). */
const WARMUP_S = num('CONVERT_WARMUP_S', 10);

interface Sample {
  at: number;
  ms: number;
  status: number;
}

const summary = (xs: Sample[]) => ({
  n: xs.length,
  errors: xs.filter((x) => x.status !== 202).length,
  p50: percentile(
    xs.map((x) => x.ms),
    50,
  ),
  p99: percentile(
    xs.map((x) => x.ms),
    99,
  ),
  max: percentile(
    xs.map((x) => x.ms),
    100,
  ),
});

runBench(async () => {
  const db = await createDatabase();
  const log = (msg: string, extra: unknown = '') => process.stdout.write(`${new Date().toISOString()} ${msg} ${extra ? JSON.stringify(extra) : ''}\n`);
  try {
    // The database as the previous release leaves it, with ROWS audit rows in time order.
    const orm = await openOrm({ databaseUrl: db.url, dataDir: '.', poolMax: 4, connMaxLifetimeS: 0 });
    await orm.migrator.up({ to: 'Migration20261130200000DeliveryTrace' });
    let t = performance.now();
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const chunk = 500_000;
    for (let from = 1; from <= ROWS; from += chunk) {
      const to = Math.min(ROWS, from + chunk - 1);
      // Rows like the publish path's: an event's audit row with its summary (about 350 bytes of heap).
      await admin.query(
        `insert into audit_log (id, action, source, actor_user_id, token_id, target_type, target_id, request_id, summary, created_at)
         select gen_random_uuid(), 'inbound.event.received', 'api', null, gen_random_uuid(), 'delivery', gen_random_uuid()::text,
                'req_' || md5(g::text), jsonb_build_object('event_id', 'ev-' || g, 'event_type', 'personal.build.failed', 'severity', 'warn', 'delivery_id', gen_random_uuid()),
                now() - interval '180 days' + (g::float8 / $3) * interval '180 days'
           from generate_series($1::int, $2::int) g`,
        [from, to, ROWS],
      );
    }
    await admin.query('vacuum analyze audit_log');
    const size = (await admin.query(`select pg_size_pretty(pg_total_relation_size('audit_log')) as s`)).rows[0].s;
    log('filled', { rows: ROWS, size, s: Math.round((performance.now() - t) / 100) / 10 });

    // This release's migration: starts the conversion (copy, partitions, trigger, progress row).
    t = performance.now();
    await orm.migrator.up();
    const migrationMs = Math.round(performance.now() - t);
    log('migration', { ms: migrationMs });

    const server = await startBenchServer(db.url, { WORKER: 'off', DB_POOL_MAX: '10' });
    const setup = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', WORKER: 'off' }, 'bench'), { role: 'cli' });
    const tokens: string[] = [];
    const runId = randomBytes(4).toString('hex');
    for (let i = 0; i < TOKENS; i++) {
      const email = `convert-${runId}-${i}@example.test`;
      const u = await runOperator(setup, 'users.create', { email, name: `Convert ${i}` });
      if (!u.ok) throw new Error(JSON.stringify(u.error));
      const tk = await runOperator(setup, 'tokens.create_personal', { email, label: 'bench', daily_limit: 1000 });
      if (!tk.ok) throw new Error(JSON.stringify(tk.error));
      tokens.push((tk.output as { token: string }).token);
    }
    await setup.close();

    // Open-loop load: RATE publishes per second whatever the latency.
    const samples: Sample[] = [];
    let stop = false;
    let k = 0;
    const inflight = new Set<Promise<void>>();
    const t0 = performance.now();
    const load = (async () => {
      while (!stop) {
        const due = t0 + (k * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const i = k++;
        const started = performance.now();
        const p = fetch(`${server.baseUrl}/api/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens[i % tokens.length]}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            spec_version: '2',
            event_id: `conv-${runId}-${i}`,
            event_type: 'personal.build.failed',
            severity: 'warn',
            title: 'Build failed on main',
            occurred_at: new Date(Date.now() - 60_000).toISOString(),
          }),
        })
          .then(async (r) => {
            await r.arrayBuffer();
            samples.push({ at: started, ms: performance.now() - started, status: r.status });
          })
          .catch(() => {
            samples.push({ at: started, ms: performance.now() - started, status: 0 });
          })
          .finally(() => inflight.delete(p));
        inflight.add(p);
      }
    })();
    const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

    await sleep(WARMUP_S);
    const measuredStart = performance.now();
    await sleep(PHASE_S);
    const backfillStart = performance.now();
    const result = await advanceConversion(orm, 'audit_log', new Date(), { batchBlocks: BATCH_BLOCKS, budgetMs: 24 * 3_600_000 });
    const convertEnd = performance.now();
    await sleep(PHASE_S);
    stop = true;
    await load;
    await Promise.all(inflight);
    const afterStart = convertEnd;
    // The swap ran at the end of the conversion: the last second before convertEnd holds it.
    const swapWindow = samples.filter((x) => x.at >= convertEnd - 1000 - (result.swapMs ?? 0) - (result.swapWaitMs ?? 0) && x.at < convertEnd);
    const report = {
      rows: ROWS,
      heapAndIndexes: size,
      rate: RATE,
      migrationMs,
      conversion: { ...result, totalS: Math.round((convertEnd - backfillStart) / 100) / 10 },
      publish: {
        triggerOnBeforeBackfill: summary(samples.filter((x) => x.at >= measuredStart && x.at < backfillStart)),
        duringConversion: summary(samples.filter((x) => x.at >= backfillStart && x.at < convertEnd)),
        aroundSwap: summary(swapWindow),
        afterSwap: summary(samples.filter((x) => x.at >= afterStart)),
      },
    };
    log('result', report);
    const check = (await admin.query(`select count(*)::bigint as n, (select relkind from pg_class where relname = 'audit_log') as kind from audit_log`))
      .rows[0];
    log('check', { rows: check.n, relkind: check.kind });
    await admin.end();
    await server.stop();
    await orm.close();
    return 0;
  } finally {
    await db.drop();
  }
});
