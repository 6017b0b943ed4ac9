// `npm run bench:delivery-keys`: the upgrade that adds the dedup key table
// (Migration20261201400000DeliveryKeys, then ...Backfill) on a database holding KEYS_ROWS
// deliveries (default 5 M, generate_series over the last six months), while a writer of the
// previous release keeps inserting and repeating deliveries at KEYS_RATE statements/s (default 100,
// open loop): its own statement, `insert into deliveries ... on conflict (token_id, event_id) do
// update`, on connections without `fluxdesk.writes_delivery_keys`, so the trigger keys its rows.
// Reports the migrations' time, the writer's latency (p50 / p99 / max) before, during and after,
// and checks that every delivery has its key.
import pg from 'pg';
import { createDatabase } from '../test/helpers/harness.js';
import { openOrm } from '../src/infra/db/orm.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import { runBench } from './service.js';

const num = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt);
const ROWS = num('KEYS_ROWS', 5_000_000);
const RATE = num('KEYS_RATE', 100);
const PHASE_S = num('KEYS_PHASE_S', 10);

interface Sample {
  at: number;
  ms: number;
  ok: boolean;
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10;
};
const summary = (xs: Sample[]) => {
  const ms = xs.map((x) => x.ms);
  return { n: xs.length, errors: xs.filter((x) => !x.ok).length, p50: pct(ms, 50), p99: pct(ms, 99), max: pct(ms, 100) };
};

runBench(async () => {
  const db = await createDatabase();
  const log = (msg: string, extra: unknown = '') => process.stdout.write(`${new Date().toISOString()} ${msg} ${extra ? JSON.stringify(extra) : ''}\n`);
  const admin = new pg.Client({ connectionString: db.url });
  try {
    // A user and a personal token through the operator operations (valid foreign keys for the rows).
    const setup = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', WORKER: 'off' }, 'bench'), { role: 'cli' });
    const email = 'keys-bench@example.test';
    const u = await runOperator(setup, 'users.create', { email, name: 'Keys bench' });
    if (!u.ok) throw new Error(JSON.stringify(u.error));
    const tk = await runOperator(setup, 'tokens.create_personal', { email, label: 'bench', daily_limit: 1000 });
    if (!tk.ok) throw new Error(JSON.stringify(tk.error));
    await setup.close();
    await admin.connect();
    const token = (await admin.query(`select id, integrator_id, owner_user_id as user_id from inbound_tokens limit 1`)).rows[0] as {
      id: string;
      integrator_id: string;
      user_id: string;
    };

    // The database as the previous release leaves it: no key table, no trigger.
    await admin.query(`drop table delivery_keys`);
    await admin.query(`drop function delivery_keys_sync() cascade`);
    await admin.query(`delete from mikro_orm_migrations where name like 'Migration20261201400%DeliveryKeys%'`);
    let t = performance.now();
    const chunk = 500_000;
    for (let from = 1; from <= ROWS; from += chunk) {
      const to = Math.min(ROWS, from + chunk - 1);
      // Rows like the publish path's (about 250 bytes of heap): title, summary, labels, actor.
      await admin.query(
        `insert into deliveries (id, token_id, integrator_id, recipient_user_id, event_id, event_type, severity, title, summary,
           labels, actor, occurred_at, created_at, last_event_at, fire_count)
         select gen_random_uuid(), $4, $5, $6, 'ev-' || g, 'personal.build.failed', 'warn', 'Build ' || g || ' failed on main',
           'Pipeline ' || md5(g::text) || ' failed at step test', '{"repo":"fluxdesk","branch":"main"}'::jsonb,
           '{"name":"CI"}'::jsonb, at, at, at, 1
         from (select g, now() - interval '180 days' + (g::float8 / $3) * interval '180 days' as at from generate_series($1::int, $2::int) g) x`,
        [from, to, ROWS, token.id, token.integrator_id, token.user_id],
      );
    }
    await admin.query('vacuum analyze deliveries');
    const size = (await admin.query(`select pg_size_pretty(pg_total_relation_size('deliveries')) as s`)).rows[0].s;
    log('filled', { rows: ROWS, size, s: Math.round((performance.now() - t) / 100) / 10 });

    // The previous release's writer: half new events, half repeats of the newest ones.
    const pool = new pg.Pool({ connectionString: db.url, max: 8 });
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
        const eventId = i % 2 === 0 ? `prev-${i}` : `prev-${Math.max(0, i - 11)}`;
        const started = performance.now();
        const p = pool
          .query({
            name: 'previous_release_delivery_upsert',
            text: `insert into deliveries (id, token_id, integrator_id, recipient_user_id, event_id, event_type, severity, title, occurred_at, created_at, last_event_at, fire_count)
                   values (gen_random_uuid(), $1, $2, $3, $4, 'personal.build.failed', 'warn', 'Build failed on main', now(), now(), now(), 1)
                   on conflict (token_id, event_id) do update set fire_count = deliveries.fire_count + 1, last_event_at = excluded.last_event_at`,
            values: [token.id, token.integrator_id, token.user_id, eventId],
          })
          .then(
            () => void samples.push({ at: started, ms: performance.now() - started, ok: true }),
            () => void samples.push({ at: started, ms: performance.now() - started, ok: false }),
          )
          .finally(() => inflight.delete(p));
        inflight.add(p);
      }
    })();
    const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
    await sleep(PHASE_S);

    // This release's first node starts: the two migrations.
    const orm = await openOrm({ databaseUrl: db.url, dataDir: '.', poolMax: 2, connMaxLifetimeS: 0 });
    const migrateStart = performance.now();
    t = migrateStart;
    const steps: Record<string, number> = {};
    for (const name of ['Migration20261201400000DeliveryKeys', 'Migration20261201400100DeliveryKeysBackfill']) {
      await orm.migrator.up({ to: name });
      steps[name] = Math.round(performance.now() - t);
      t = performance.now();
    }
    const migrateEnd = performance.now();
    await orm.close();
    await sleep(PHASE_S);
    stop = true;
    await load;
    await Promise.all(inflight);
    await pool.end();

    const check = (
      await admin.query(
        `select (select count(*) from deliveries)::bigint as deliveries, (select count(*) from delivery_keys)::bigint as keys,
           (select count(*) from deliveries d where not exists (select 1 from delivery_keys k where k.token_id = d.token_id and k.event_id = d.event_id and k.delivery_id = d.id))::bigint as missing`,
      )
    ).rows[0];
    log('result', {
      rows: ROWS,
      deliveriesSize: size,
      rate: RATE,
      migrationMs: steps,
      previousReleaseWriter: {
        before: summary(samples.filter((x) => x.at < migrateStart)),
        duringMigration: summary(samples.filter((x) => x.at >= migrateStart && x.at < migrateEnd)),
        after: summary(samples.filter((x) => x.at >= migrateEnd)),
      },
      keysSize: (await admin.query(`select pg_size_pretty(pg_total_relation_size('delivery_keys')) as s`)).rows[0].s,
      check,
    });
    return check.missing === '0' && check.keys === check.deliveries ? 0 : 1;
  } finally {
    await admin.end().catch(() => {});
    await db.drop();
  }
});
