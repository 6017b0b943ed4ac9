// `npm run bench:delivery-keys`: the upgrade that adds the dedup key table
// (Migration20261201400000DeliveryKeys, then ...Backfill) on a database holding KEYS_ROWS
// deliveries (default 5 M, generate_series over the last six months, each with its inbox row), while a writer of the
// previous release keeps inserting and repeating deliveries at KEYS_RATE statements/s (default 100,
// open loop): its own statement, `insert into deliveries ... on conflict (token_id, event_id) do
// update`, on connections without `fluxdesk.writes_delivery_keys`, so the trigger keys its rows.
// Reports the migrations' time, the writer's latency (p50 / p99 / max) before, during and after,
// and checks that every delivery has its key. Then the rollout's end: a writer with this release's
// statement (the key first, and the inbox row) while `migrate --post-deploy` partitions deliveries,
// notifications and delivery_supplements in place (Migration20261202000000DeliveriesPartitioned,
// Migration20261203000000InboxPartitioned): its time and the writer's latency around it.
// Last, retention at a clock months later: the legacy partitions (every filled row) and B's month
// dropped with their keys and inbox rows, while a writer publishes at that clock; the inbox
// counters are checked against the rows left.
import pg from 'pg';
import { createDatabase } from '../test/helpers/harness.js';
import { migrate, openOrm } from '../src/infra/db/orm.js';
import { addMonths, dropExpiredPartitions, ensurePartitionsAhead, expiredPartitions } from '../src/infra/db/partitions.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import { runBench, percentile } from './service.js';

const num = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt);
const ROWS = num('KEYS_ROWS', 5_000_000);
const RATE = num('KEYS_RATE', 100);
const PHASE_S = num('KEYS_PHASE_S', 10);

interface Sample {
  at: number;
  ms: number;
  ok: boolean;
}

const summary = (xs: Sample[]) => {
  const ms = xs.map((x) => x.ms);
  return { n: xs.length, errors: xs.filter((x) => !x.ok).length, p50: percentile(ms, 50), p99: percentile(ms, 99), max: percentile(ms, 100) };
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
      // Rows like the publish path's (about 250 bytes of heap): title, summary, labels, actor; and
      // the inbox row with the delivery's time (most of them read).
      await admin.query(
        `with x as (
           select gen_random_uuid() as id, g, now() - interval '180 days' + (g::float8 / $3) * interval '180 days' as at from generate_series($1::int, $2::int) g
         ), d as (
           insert into deliveries (id, token_id, integrator_id, recipient_user_id, event_id, event_type, severity, title, summary,
             labels, actor, occurred_at, created_at, last_event_at, fire_count)
           select id, $4, $5, $6, 'ev-' || g, 'personal.build.failed', 'warn', 'Build ' || g || ' failed on main',
             'Pipeline ' || md5(g::text) || ' failed at step test', '{"repo":"fluxdesk","branch":"main"}'::jsonb,
             '{"name":"CI"}'::jsonb, at, at, at, 1
           from x
         )
         insert into notifications (id, user_id, type, title, summary, delivery_id, created_at, updated_at, read_at)
         select gen_random_uuid(), $6, 'system', 'Build ' || g || ' failed on main', 'Pipeline ' || md5(g::text) || ' failed at step test',
           id, at, at, case when g % 10 <> 0 then at end
         from x`,
        [from, to, ROWS, token.id, token.integrator_id, token.user_id],
      );
    }
    await admin.query('vacuum analyze deliveries');
    await admin.query('vacuum analyze notifications');
    const size = (await admin.query(`select pg_size_pretty(pg_total_relation_size('deliveries')) as s`)).rows[0].s;
    const inboxSize = (await admin.query(`select pg_size_pretty(pg_total_relation_size('notifications')) as s`)).rows[0].s;
    log('filled', { rows: ROWS, size, s: Math.round((performance.now() - t) / 100) / 10 });

    // A writer at RATE statements/s (open loop): half new events, half repeats of recent ones.
    const pool = new pg.Pool({ connectionString: db.url, max: 8 });
    const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
    const writer = (prefix: string, name: string, text: string, extra: () => unknown[] = () => []) => {
      const samples: Sample[] = [];
      let stop = false;
      let k = 0;
      const inflight = new Set<Promise<void>>();
      const t0 = performance.now();
      const done = (async () => {
        while (!stop) {
          const due = t0 + (k * 1000) / RATE;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const i = k++;
          const eventId = i % 2 === 0 ? `${prefix}-${i}` : `${prefix}-${Math.max(0, i - 11)}`;
          const started = performance.now();
          const p = pool
            .query({ name, text, values: [token.id, token.integrator_id, token.user_id, eventId, ...extra()] })
            .then(
              () => void samples.push({ at: started, ms: performance.now() - started, ok: true }),
              () => void samples.push({ at: started, ms: performance.now() - started, ok: false }),
            )
            .finally(() => inflight.delete(p));
          inflight.add(p);
        }
        await Promise.all(inflight);
      })();
      return {
        samples,
        stop: async () => {
          stop = true;
          await done;
        },
      };
    };
    const phases = (samples: Sample[], from: number, to: number) => ({
      before: summary(samples.filter((x) => x.at < from)),
      during: summary(samples.filter((x) => x.at >= from && x.at < to)),
      after: summary(samples.filter((x) => x.at >= to)),
    });

    // 1. The previous release's statement, while this release's first node applies the two migrations.
    const previous = writer(
      'prev',
      'previous_release_delivery_upsert',
      `insert into deliveries (id, token_id, integrator_id, recipient_user_id, event_id, event_type, severity, title, occurred_at, created_at, last_event_at, fire_count)
       values (gen_random_uuid(), $1, $2, $3, $4, 'personal.build.failed', 'warn', 'Build failed on main', now(), now(), now(), 1)
       on conflict (token_id, event_id) do update set fire_count = deliveries.fire_count + 1, last_event_at = excluded.last_event_at`,
    );
    await sleep(PHASE_S);
    const orm = await openOrm({ databaseUrl: db.url, dataDir: '.', poolMax: 2, connMaxLifetimeS: 0 });
    const migrateStart = performance.now();
    t = migrateStart;
    const steps: Record<string, number> = {};
    for (const name of ['Migration20261201400000DeliveryKeys', 'Migration20261201400100DeliveryKeysBackfill']) {
      await orm.migrator.up({ migrations: [name] });
      steps[name] = Math.round(performance.now() - t);
      t = performance.now();
    }
    const migrateEnd = performance.now();
    await sleep(PHASE_S);
    await previous.stop();
    const check = (
      await admin.query(
        `select (select count(*) from deliveries)::bigint as deliveries, (select count(*) from delivery_keys)::bigint as keys,
           (select count(*) from deliveries d where not exists (select 1 from delivery_keys k where k.token_id = d.token_id and k.event_id = d.event_id and k.delivery_id = d.id))::bigint as missing`,
      )
    ).rows[0];
    const keysSize = (await admin.query(`select pg_size_pretty(pg_total_relation_size('delivery_keys')) as s`)).rows[0].s;

    // 2. The rollout over: this release's statement (the key first), while `migrate --post-deploy` partitions deliveries.
    const current = writer(
      'cur',
      'this_release_keyed_publish',
      `with k as (
         insert into delivery_keys (token_id, event_id, delivery_id, created_at) values ($1, $4, gen_random_uuid(), now())
         on conflict (token_id, event_id) do nothing returning delivery_id, created_at
       ), dn as (
         insert into deliveries (id, token_id, integrator_id, recipient_user_id, event_id, event_type, severity, title, occurred_at, created_at, last_event_at, fire_count)
         select k.delivery_id, $1, $2, $3, $4, 'personal.build.failed', 'warn', 'Build failed on main', now(), k.created_at, k.created_at, 1 from k
         returning id, created_at
       ), n as (
         insert into notifications (id, user_id, type, title, delivery_id, created_at, updated_at)
         select gen_random_uuid(), $3, 'system', 'Build failed on main', dn.id, dn.created_at, dn.created_at from dn
       )
       update deliveries x set fire_count = x.fire_count + 1, last_event_at = now() from delivery_keys dk
       where dk.token_id = $1 and dk.event_id = $4 and x.id = dk.delivery_id and x.created_at = dk.created_at`,
    );
    await sleep(PHASE_S);
    const postStart = performance.now();
    const applied = await migrate(orm, db.url, { postDeploy: true });
    const postEnd = performance.now();
    await sleep(PHASE_S);
    await current.stop();

    const after = (
      await admin.query(
        `select (select relkind from pg_class where relname = 'deliveries') as relkind, (select count(*) from deliveries)::bigint as deliveries,
           (select relkind from pg_class where relname = 'notifications') as inbox_relkind, (select count(*) from notifications)::bigint as notifications,
           (select string_agg(c.relname, ' ' order by c.relname) from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'deliveries'::regclass) as partitions`,
      )
    ).rows[0];

    // 3. Retention months later: the clock at F, 91 days after B's month ended, so B's month and the
    // legacy partition (every filled row) are past DELIVERY_RETENTION_DAYS; a writer publishes at F
    // (the same keyed statement, its rows' time given) while they are dropped.
    const legacyUntil = new Date((await admin.query(`select until from partition_legacy where table_name = 'deliveries'`)).rows[0].until);
    const fakeNow = new Date(addMonths(legacyUntil, 1).getTime() + 91 * 86_400_000);
    await ensurePartitionsAhead(orm.em.fork(), fakeNow, 1);
    const late = writer(
      'late',
      'this_release_keyed_publish_at',
      `with k as (
         insert into delivery_keys (token_id, event_id, delivery_id, created_at) values ($1, $4, gen_random_uuid(), $5::timestamptz)
         on conflict (token_id, event_id) do nothing returning delivery_id, created_at
       ), dn as (
         insert into deliveries (id, token_id, integrator_id, recipient_user_id, event_id, event_type, severity, title, occurred_at, created_at, last_event_at, fire_count)
         select k.delivery_id, $1, $2, $3, $4, 'personal.build.failed', 'warn', 'Build failed on main', k.created_at, k.created_at, k.created_at, 1 from k
         returning id, created_at
       ), n as (
         insert into notifications (id, user_id, type, title, delivery_id, created_at, updated_at)
         select gen_random_uuid(), $3, 'system', 'Build failed on main', dn.id, dn.created_at, dn.created_at from dn
       )
       update deliveries x set fire_count = x.fire_count + 1, last_event_at = $5::timestamptz from delivery_keys dk
       where dk.token_id = $1 and dk.event_id = $4 and x.id = dk.delivery_id and x.created_at = dk.created_at`,
      () => [fakeNow.toISOString()],
    );
    await sleep(PHASE_S);
    const em = orm.em.fork();
    const expired = await expiredPartitions(em, fakeNow, { audit: 400, delivery: 90 });
    const dropStart = performance.now();
    const dropped = await dropExpiredPartitions(em, expired);
    const dropEnd = performance.now();
    await sleep(PHASE_S);
    await late.stop();
    const left = (
      await admin.query(
        `select (select count(*) from deliveries)::bigint as deliveries, (select count(*) from delivery_keys)::bigint as keys,
           (select count(*) from notifications)::bigint as notifications,
           (select coalesce(sum(total), 0) from inbox_counters)::bigint as counted, (select coalesce(sum(unread), 0) from inbox_counters)::bigint as counted_unread,
           (select count(*) from notifications where read_at is null)::bigint as unread`,
      )
    ).rows[0];
    await orm.close();
    await pool.end();

    log('result', {
      rows: ROWS,
      deliveriesSize: size,
      notificationsSize: inboxSize,
      rate: RATE,
      keys: { migrationMs: steps, previousReleaseWriter: phases(previous.samples, migrateStart, migrateEnd), keysSize, check },
      postDeploy: { applied, ms: Math.round(postEnd - postStart), thisReleaseWriter: phases(current.samples, postStart, postEnd), after },
      retention: {
        dropped: dropped.map((d) => `${d.partition} (~${d.rowsEstimate ?? '?'} rows)`),
        ms: Math.round(dropEnd - dropStart),
        writer: phases(late.samples, dropStart, dropEnd),
        left,
      },
    });
    const countersExact = left.counted === left.notifications && left.counted_unread === left.unread;
    return check.missing === '0' && check.keys === check.deliveries && after.relkind === 'p' && after.inbox_relkind === 'p' && countersExact ? 0 : 1;
  } finally {
    await admin.end().catch(() => {});
    await db.drop();
  }
});
