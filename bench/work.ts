// `npm run bench:work`: tools/call list_tasks over 100,000 tasks and search_docs over 100,000
// document pages on real PostgreSQL and Redis, the service in a child process. PASS when each query
// shape reads the large table through an index (EXPLAIN of exactly the SQL the operation sent), and
// the latency at one and at BENCH_WORK_CONNECTIONS callers. A measurement, never a test:
// bench/README.md, "bench:work".
import autocannon from 'autocannon';
import { AGENT_OPERATIONS } from '../src/app/operations.js';
import { runOperation } from '../src/app/run-operation.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import { createDatabase } from '../test/helpers/harness.js';
import { cpuColumns, cpuPerRequest, cpuSnap } from './cpu.js';
import { runBench, startBenchServer } from './service.js';

const SECONDS = Number(process.env.BENCH_WORK_SECONDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_WORK_CONNECTIONS ?? 10);
const TASKS = Number(process.env.BENCH_WORK_TASKS ?? 100_000);
const PAGES = Number(process.env.BENCH_WORK_PAGES ?? 100_000);
const PROJECTS = 200;
const MEMBER_OF = 20;
// Every call counts against its token's 60/min window: each token is used at most 55 times.
const TOKENS = Number(process.env.BENCH_WORK_TOKENS ?? 1000);
const PER_TOKEN = 55;
const TARGETS = { listTasksP99: 25, searchDocsP99: 50 };
const log = (m: string) => process.stderr.write(`[bench:work] ${m}\n`);

const WORDS = [
  'harbor',
  'falcon',
  'quartz',
  'meadow',
  'lantern',
  'glacier',
  'orchid',
  'summit',
  'canyon',
  'ember',
  'voyage',
  'prism',
  'thicket',
  'beacon',
  'cobalt',
  'dune',
  'fjord',
  'garnet',
  'hollow',
  'ivory',
  'jasper',
  'kestrel',
  'lagoon',
  'marble',
  'nectar',
  'onyx',
  'pebble',
  'quiver',
  'raven',
  'saffron',
  'tundra',
  'umber',
  'velvet',
  'willow',
  'yonder',
  'zephyr',
  'anchor',
  'bramble',
  'cinder',
  'drift',
  'echo',
  'fable',
  'grove',
  'haven',
  'inlet',
  'juniper',
  'knoll',
  'lumen',
  'mosaic',
  'nimbus',
];

interface Scenario {
  title: string;
  tool: 'list_tasks' | 'search_docs';
  args: Record<string, unknown>;
  /** Identifies the main statement among those the operation sends. */
  marker: string;
  /** The big table: it must be read through an index, never by a sequential scan. */
  table: string;
  /** The caller: the member (20 of 200 projects) or an admin (sees everything). */
  as: 'member' | 'admin';
}

const SCENARIOS: Scenario[] = [
  { title: 'list_tasks (10,000 visible, limit 50)', tool: 'list_tasks', args: {}, marker: 'from tasks t', table: 'tasks', as: 'member' },
  {
    title: 'list_tasks project + status',
    tool: 'list_tasks',
    args: { project: 'wb7', status: 'review' },
    marker: 'from tasks t',
    table: 'tasks',
    as: 'member',
  },
  { title: 'list_tasks assignee=me', tool: 'list_tasks', args: { assignee: 'me' }, marker: 'from tasks t', table: 'tasks', as: 'member' },
  { title: 'list_tasks as admin (all 100,000)', tool: 'list_tasks', args: {}, marker: 'from tasks t', table: 'tasks', as: 'admin' },
  { title: 'search_docs common word (2% of pages)', tool: 'search_docs', args: { query: 'lantern' }, marker: 'hits as (', table: 'doc_pages', as: 'member' },
  { title: 'search_docs rare token', tool: 'search_docs', args: { query: 'ticket-4201' }, marker: 'hits as (', table: 'doc_pages', as: 'member' },
  { title: 'search_docs common word as admin', tool: 'search_docs', args: { query: 'lantern' }, marker: 'hits as (', table: 'doc_pages', as: 'admin' },
];

async function seed(exec: (sql: string, params?: unknown[]) => Promise<unknown>, ownerId: string, memberId: string): Promise<void> {
  const words = `array[${WORDS.map((w) => `'${w}'`).join(',')}]`;
  await exec(
    `insert into projects (id, slug, name, owner_user_id, created_at) select gen_random_uuid(), 'wb' || g, 'Work bench ' || g, ?, now() - interval '400 days' from generate_series(1, ${PROJECTS}) g`,
    [ownerId],
  );
  await exec(
    `insert into project_members (project_id, user_id, role, created_at) select p.id, ?, 'member', now() from projects p join generate_series(1, ${MEMBER_OF}) g on p.slug = 'wb' || g`,
    [memberId],
  );
  const t0 = performance.now();
  await exec(
    `with p as (select id, slug, (substr(slug, 3)::int - 1) as i from projects where slug like 'wb%')
     insert into tasks (id, project_id, number, code, title, description, kind, priority, status, due_date, assignee_user_id, creator_user_id, parent_task_id, is_draft, created_at, updated_at, published_at)
     select gen_random_uuid(), p.id, (g - 1) / ${PROJECTS} + 1, upper(p.slug) || '-' || ((g - 1) / ${PROJECTS} + 1),
            'Task ' || g || ' ' || (${words})[g % 50 + 1], 'Description of task ' || g,
            (array['issue','task','bug','chore'])[g % 4 + 1], (array['low','medium','high','urgent'])[g % 4 + 1],
            (array['todo','in_progress','review','done','cancelled'])[g % 5 + 1], null,
            case when g % 10 = 0 then ?::uuid else null end, ?::uuid, null, false,
            now() - ((${TASKS} - g) || ' minutes')::interval, now() - ((${TASKS} - g) || ' minutes')::interval, now() - ((${TASKS} - g) || ' minutes')::interval
       from generate_series(1, ${TASKS}) g join p on p.i = (g - 1) % ${PROJECTS}`,
    [memberId, ownerId],
  );
  await exec(`insert into project_task_counters (project_id, last_number) select project_id, max(number) from tasks group by project_id`);
  log(`${TASKS} tasks in ${Math.round(performance.now() - t0)} ms`);
  const t1 = performance.now();
  await exec(
    `insert into doc_spaces (id, project_id, slug, name, is_default, created_by_user_id, created_at) select gen_random_uuid(), id, slug, name, true, ?, now() from projects where slug like 'wb%'`,
    [ownerId],
  );
  await exec(
    `with s as (select id, project_id, (substr(slug, 3)::int - 1) as i from doc_spaces where slug like 'wb%')
     insert into doc_pages (id, space_id, project_id, parent_page_id, slug, title, body, kind, status, pinned, change_summary, author_user_id, revision, created_at, updated_at, published_at, archived_at, archived_from_status, archive_root_id)
     select gen_random_uuid(), s.id, s.project_id, null, 'page-' || g, 'Page ' || g || ' about ' || (${words})[g % 50 + 1],
            'Notes for page ' || g || '. Reference ticket-' || g || '. ' || repeat((${words})[(g * 7 + 3) % 50 + 1] || ' lorem ipsum dolor sit amet consectetur adipiscing ', 8),
            'page', case when g % 10 = 0 then 'draft' else 'published' end, g % 97 = 0, null, ?, 1,
            now() - ((${PAGES} - g) || ' minutes')::interval, now() - ((${PAGES} - g) || ' minutes')::interval,
            case when g % 10 = 0 then null else now() - ((${PAGES} - g) || ' minutes')::interval end, null, null, null
       from generate_series(1, ${PAGES}) g join s on s.i = (g - 1) % ${PROJECTS}`,
    [ownerId],
  );
  log(`${PAGES} document pages in ${Math.round(performance.now() - t1)} ms`);
  await exec('analyze');
}

async function main(): Promise<number> {
  const db = await createDatabase();
  const dbName = db.url.replace(/^.*\//, '').replace(/\?.*$/, '');
  const only = process.env.BENCH_ONLY?.split(',');
  const server = await startBenchServer(db.url, { WORKER: 'off' });
  try {
    const base = server.baseUrl;
    const setup = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', DB_POOL_MAX: '4' }, 'bench'), { role: 'cli' });
    const conn = setup.orm.em.getConnection();
    const exec = (sql: string, params: unknown[] = []) => conn.execute(sql, params);
    const stamp = Date.now();
    const owner = (await runOperator(setup, 'users.create', { email: `work-owner-${stamp}@example.test`, name: 'Work owner' })).output as { userId: string };
    const memberEmail = `work-member-${stamp}@example.test`;
    const member = (await runOperator(setup, 'users.create', { email: memberEmail, name: 'Work member' })).output as { userId: string };
    await seed(exec, owner.userId, member.userId);

    const adminEmail = `work-admin-${stamp}@example.test`;
    await runOperator(setup, 'users.create', { email: adminEmail, name: 'Work admin', role: 'admin' });
    // Each scenario has its own tokens (its caller's), each used at most PER_TOKEN times.
    const perPool = Math.max(1, Math.floor(TOKENS / SCENARIOS.length));
    const pools: string[][] = [];
    for (const s of SCENARIOS) {
      const email = s.as === 'admin' ? adminEmail : memberEmail;
      const mint = async () =>
        ((await runOperator(setup, 'agent_tokens.create', { email, scopes: ['read:tasks', 'read:docs'] })).output as { token: string }).token;
      const pool: string[] = [];
      for (let i = 0; i < perPool; i += 16) pool.push(...(await Promise.all(Array.from({ length: Math.min(16, perPool - i) }, mint))));
      pools.push(pool);
    }

    // EXPLAIN the exact statement each scenario sends: run the operation in-process and capture it.
    const opOf = { list_tasks: AGENT_OPERATIONS['tasks.list']!, search_docs: AGENT_OPERATIONS['docs.search']! };
    const plans: Array<{ title: string; indexed: boolean; ms: string }> = [];
    const proto = Object.getPrototypeOf(conn) as { execute: (...a: unknown[]) => Promise<unknown> };
    const original = proto.execute;
    let captured: Array<{ sql: string; params: unknown[] }> | null = null;
    proto.execute = function (this: unknown, ...a: unknown[]) {
      if (captured && typeof a[0] === 'string') captured.push({ sql: a[0], params: (a[1] as unknown[]) ?? [] });
      return original.apply(this, a);
    };
    for (const [i, s] of SCENARIOS.entries()) {
      captured = [];
      // In-process: this call's rate window is this process's memory, not the service's Redis.
      await runOperation(setup, opOf[s.tool], { surface: 'mcp', requestId: 'bench', authorization: `Bearer ${pools[i]![0]}`, input: s.args, log: setup.log });
      const main = captured.find((c) => c.sql.includes(s.marker));
      captured = null;
      if (!main) throw new Error(`no statement with "${s.marker}" captured for ${s.title}`);
      const rows = (await conn.execute(`explain (analyze, buffers, costs off) ${main.sql}`, main.params)) as Array<Record<string, string>>;
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      const seq = plan.includes(`Seq Scan on ${s.table} `);
      const idx = new RegExp(`(Index Scan|Index Only Scan)( Backward)? using \\w+ on ${s.table} |Bitmap Heap Scan on ${s.table} `).test(plan);
      plans.push({ title: s.title, indexed: idx && !seq, ms: /Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? '?' });
      console.log(`\n--- EXPLAIN ${s.title} (${s.tool} ${JSON.stringify(s.args)}) ---\n${plan}`);
    }
    proto.execute = original;
    await setup.close();
    if (process.env.BENCH_WORK_EXPLAIN_ONLY) {
      console.table(plans);
      return 0;
    }

    const used = SCENARIOS.map(() => 0);
    const token = (i: number) => pools[i]![used[i]!++ % pools[i]!.length]!;
    const budget = (i: number) => pools[i]!.length * PER_TOKEN - used[i]!;
    const run = async (s: Scenario, i: number, connections: number, seconds: number) => {
      const before = cpuSnap(server.proc.pid, dbName);
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: s.tool, arguments: s.args } });
      const r = await autocannon({
        url: `${base}/mcp`,
        connections,
        duration: seconds,
        // Stay inside the pool's budget (round robin: no token above PER_TOKEN calls).
        maxOverallRequests: Math.max(connections, budget(i) - pools[i]!.length),
        timeout: 10,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token(i)}` },
              body,
            }),
          },
        ],
      });
      const cpu = cpuPerRequest(before, cpuSnap(server.proc.pid, dbName), r.requests.total);
      return {
        title: s.title,
        conns: connections,
        rps: Math.round(r.requests.average),
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
        ...cpuColumns(cpu),
      };
    };
    // One check call per tool: the answer must be a successful tool result with rows.
    for (const [i, s] of SCENARIOS.entries()) {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token(i)}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: s.tool, arguments: s.args } }),
      });
      const json = (await res.json()) as { result?: { isError: boolean; structuredContent?: { items?: unknown[]; hits?: unknown[] } } };
      const n = json.result?.structuredContent?.items?.length ?? json.result?.structuredContent?.hits?.length ?? 0;
      if (res.status !== 200 || json.result?.isError !== false || n === 0)
        throw new Error(`${s.title}: unexpected answer ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
      log(`${s.title}: ${n} rows`);
    }
    // Each scenario twice: one caller (the query's latency: the targets' reading) and
    // CONNECTIONS callers (throughput; on 2 shared cores its p99 is mostly queueing).
    const rows: Awaited<ReturnType<typeof run>>[] = [];
    for (const [i, s] of SCENARIOS.entries()) {
      if (only && !only.some((o) => s.title.startsWith(o))) continue;
      rows.push(await run(s, i, 1, Math.max(2, Math.round(SECONDS / 2))));
      rows.push(await run(s, i, CONNECTIONS, SECONDS));
    }
    console.log('');
    console.table(rows);
    console.table(plans);
    const verdict = (tool: string, target: number) => {
      for (const conns of [1, CONNECTIONS]) {
        const ran = rows.filter((r) => r.title.startsWith(tool) && r.conns === conns);
        if (ran.length === 0) continue; // not run (BENCH_ONLY)
        const worst = Math.max(...ran.map((r) => r.p99));
        console.log(`target ${tool} p99 <= ${target} ms, ${conns} connection(s): worst ${worst} ms -> ${worst <= target ? 'PASS' : 'MISS'}`);
      }
    };
    verdict('list_tasks', TARGETS.listTasksP99);
    verdict('search_docs', TARGETS.searchDocsP99);
    console.log(
      `EXPLAIN: ${
        plans.every((p) => p.indexed)
          ? 'PASS, every statement reads tasks / doc_pages through an index'
          : `MISS: ${plans
              .filter((p) => !p.indexed)
              .map((p) => p.title)
              .join('; ')}`
      }`,
    );
    return rows.some((r) => r.non2xx > 0 || r.errors > 0) ? 1 : 0;
  } finally {
    await server.stop();
    await db.drop().catch(() => undefined);
  }
}

runBench(main);
