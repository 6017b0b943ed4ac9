// `npm run bench:search`: inbox search on a large inbox. One user holds BENCH_SEARCH_ITEMS
// notifications (default 100,000: events of a few kinds, most done, some snoozed, most read),
// among BENCH_SEARCH_OTHERS rows of other users (default 100,000) in the same tables and GIN index.
// Rows are written by SQL (generate_series) without a search document, then indexed by the
// service's own backlog task (inbox.search-backlog: the same lexemes as a publish writes), which
// is timed too. Then each query of a fixed mix is sent by BENCH_SEARCH_CONCURRENCY (10) clients at
// once through Connect ListInbox (the web app's call), on the Inbox and All views, and, for
// comparison, the Inbox view without a query; the calls are made and timed by a process of their own
// (bench/inbox-search-load.ts). Prints per query: matches, p50 / p99 / max latency;
// and over all searches. Real PostgreSQL and Redis, the service in a child process running dist/
// as `npm start` does (built first when stale); a measurement, never a test.
import { spawnSync } from 'node:child_process';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { indexSearchBacklogTask } from '../src/domain/inbox/index-search-backlog.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import { createDatabase, PG_ADMIN_URL } from '../test/helpers/harness.js';
import type { SearchLoadJob } from './inbox-search-load.js';
import { ROOT, runBench, startBenchServer } from './service.js';

const ITEMS = Number(process.env.BENCH_SEARCH_ITEMS ?? 100_000);
const OTHERS = Number(process.env.BENCH_SEARCH_OTHERS ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_SEARCH_CONCURRENCY ?? 10);
const ROUNDS = Number(process.env.BENCH_SEARCH_ROUNDS ?? 6);
/** Rounds of each query not counted, first (see the warm-up below). */
const WARMUP = Number(process.env.BENCH_SEARCH_WARMUP ?? 6);
/** Calls an agent token makes before the next takes over (its budget is 60 per minute). */
const CALLS_PER_TOKEN = 55;
/** A database an earlier run filled (its name, printed as `database …`): searched again, not filled. */
const REUSE = process.env.BENCH_SEARCH_DB;

const QUERIES = [
  '', // no search: the view's own list and counters
  'disk',
  'db-17',
  'checkout deploy',
  'severity:critical',
  'is:unread type:personal.ci',
  'failed -severity:info',
  'from:bench-alerts',
  'status:firing severity:warn,critical',
  'b', // one letter: every word starting with b (the broadest prefix)
  'zzzz nomatch',
];
const VIEWS = ['inbox', 'all'] as const;

/** Events of a few kinds: title and summary templates, severities, types (what one user's tools send). */
const FILL_SQL = `
with kinds (k, event_type, severity, title, summary) as (values
  (0, 'personal.ci.build', 'critical', 'Build failed on main', 'Step integration tests failed after 12 minutes'),
  (1, 'personal.ci.build', 'success', 'Build passed on main', null),
  (2, 'personal.ci.deploy', 'info', 'Deploy of checkout-api finished', 'Rolled out to production in 4 minutes'),
  (3, 'personal.mon.disk', 'warn', 'Disk almost full', 'Volume /data at 91 percent'),
  (4, 'personal.mon.cpu', 'warn', 'CPU high', 'Load above 8 for 10 minutes'),
  (5, 'personal.approvals.leave', 'info', 'Leave request approved', 'Your request for next week was approved'),
  (6, 'personal.misc.digest', 'info', 'Daily digest', 'Twelve updates in your projects'),
  (7, 'personal.mon.backup', 'info', 'Backup finished', 'Nightly backup of billing database')
), src as (
  select g, (g * 7919) % 8 as k, ? ::uuid as user_id, ?::uuid as token_id, ?::uuid as integrator_id,
    now() - (g || ' seconds')::interval as at from generate_series(1, ?::int) g
), d as (
  insert into deliveries (id, token_id, integrator_id, recipient_user_id, event_id, event_type, severity, title, summary,
    external_status, labels, occurred_at, created_at, last_event_at, fire_count)
  select gen_random_uuid(), s.token_id, s.integrator_id, s.user_id, 'fill-' || ? || '-' || s.g, kinds.event_type,
    case when kinds.k = 0 and s.g % 5 = 0 then 'warn' else kinds.severity end, kinds.title, kinds.summary,
    case when kinds.k in (3, 4) then (case when s.g % 3 = 0 then 'resolved' else 'firing' end) end,
    jsonb_build_object('host', 'db-' || (s.g % 200), 'env', case when s.g % 4 = 0 then 'staging' else 'production' end),
    s.at, s.at, s.at, 1
  from src s join kinds on kinds.k = s.k
  returning id, recipient_user_id, title, summary, created_at
)
insert into notifications (id, user_id, type, title, summary, delivery_id, created_at, updated_at, read_at, state, done_at, snoozed_until)
select gen_random_uuid(), d.recipient_user_id, 'system', d.title, d.summary, d.id, d.created_at, d.created_at,
  case when x.r < 60 then d.created_at end,
  x.state, case when x.state = 'done' then d.created_at end, case when x.state = 'snoozed' then now() + interval '3 days' end
from d cross join lateral (
  select r, case when r % 10 < 7 then 'done' when r % 10 = 7 then 'snoozed' else 'inbox' end as state
  from (select abs(hashtext(d.id::text)) % 100 as r) h
) x`;

async function main(): Promise<number> {
  const db = REUSE ? { url: PG_ADMIN_URL.replace(/\/[^/]*$/, `/${REUSE}`) } : await createDatabase();
  const setup = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }, 'bench'), { role: 'cli' });
  const op = async <T>(name: string, input: Record<string, unknown>): Promise<T> => {
    const r = await runOperator(setup, name, input);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.output as T;
  };
  const conn = setup.orm.em.getConnection();
  const person = async (email: string, label: string) => {
    const u = await op<{ userId: string }>('users.create', { email, name: 'Search Bench' });
    const t = await op<{ tokenId: string }>('tokens.create_personal', { email, label, daily_limit: 1000 });
    const row = (await conn.execute('select integrator_id from inbound_tokens where id = ?', [t.tokenId])) as Array<{ integrator_id: string }>;
    return { userId: u.userId, tokenId: t.tokenId, integratorId: row[0]!.integrator_id };
  };
  let email: string;
  if (REUSE) {
    const rows = (await conn.execute("select email from users where email like 'search-bench-%' and email not like '%-o%' limit 1")) as Array<{
      email: string;
    }>;
    if (!rows[0]) throw new Error(`${REUSE} holds no search bench user`);
    email = rows[0].email;
    console.log(`database ${REUSE} (reused: not filled again)`);
  } else {
    const stamp = Date.now();
    email = `search-bench-${stamp}@example.test`;
    const me = await person(email, 'bench-alerts');
    const fill = async (p: { userId: string; tokenId: string; integratorId: string }, n: number, tag: string) => {
      for (let done = 0; done < n; done += 20_000) {
        await conn.execute(FILL_SQL, [p.userId, p.tokenId, p.integratorId, Math.min(20_000, n - done), `${tag}-${done}`]);
      }
    };
    let t0 = Date.now();
    await fill(me, ITEMS, 'me');
    const others = Math.max(1, Math.ceil(OTHERS / 20_000));
    for (let i = 0; i < others; i++) await fill(await person(`search-bench-${stamp}-o${i}@example.test`, 'other'), Math.ceil(OTHERS / others), `o${i}`);
    // The counters the fill bypassed (inbox_counters is kept by triggers on notifications: nothing to do).
    const fillS = (Date.now() - t0) / 1000;
    t0 = Date.now();
    const indexed = await indexSearchBacklogTask.run(setup);
    const indexS = (Date.now() - t0) / 1000;
    await conn.execute('vacuum analyze notifications');
    await conn.execute('vacuum analyze deliveries');
    console.log(`database ${db.url.slice(db.url.lastIndexOf('/') + 1)} (BENCH_SEARCH_DB=<it> searches it again without filling)`);
    console.log(
      `filled ${ITEMS} rows for the user and ${OTHERS} of ${others} other users in ${fillS.toFixed(1)} s; backlog task indexed ${indexed.processed} rows in ${indexS.toFixed(1)} s (${Math.round(indexed.processed / indexS)} rows/s)`,
    );
  }
  const agents: string[] = [];
  const calls = QUERIES.length * VIEWS.length * CONCURRENCY * (ROUNDS + WARMUP);
  for (let i = 0; i < Math.ceil(calls / CALLS_PER_TOKEN) + 1; i++) {
    agents.push((await op<{ token: string }>('agent_tokens.create', { email, scopes: ['read:inbox'] })).token);
  }
  await setup.close();

  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale', '--no-check'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build failed');
  const server = await startBenchServer(db.url, { WORKER: 'off' }, { dist: true });
  try {
    // The calls are made and timed by a child process of its own (bench/inbox-search-load.ts):
    // this one holds the service's modules from the setup, and its garbage collections (scavenges of
    // 7-15 ms seen) would land in the latencies it measures.
    const job: SearchLoadJob = {
      baseUrl: server.baseUrl,
      tokens: agents,
      callsPerToken: CALLS_PER_TOKEN,
      views: [...VIEWS],
      queries: QUERIES,
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
      warmup: WARMUP,
      servicePid: server.proc.pid!,
      dbName: db.url.slice(db.url.lastIndexOf('/') + 1),
    };
    const load = spawnSync(process.execPath, ['--import', 'tsx', 'bench/inbox-search-load.ts'], {
      cwd: ROOT,
      input: JSON.stringify(job),
      stdio: ['pipe', 'inherit', 'inherit'],
    });
    return load.status === 0 ? 0 : 1;
  } finally {
    await server.stop();
  }
}

await runBench(main);
