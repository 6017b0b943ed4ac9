// Tools-token benchmark (issue: tools-tokens): claim batches of 100 and bulk fan-out of 100
// recipients per request, on real PostgreSQL and Redis, against the service in a child process.
// Run: npm run bench:tools (also part of npm run bench). Prints one table.
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import { createDatabase } from '../test/helpers/harness.js';
import { cpuColumns, cpuPerRequest, cpuSnap } from './cpu.js';
import { runBench, startBenchServer, type BenchServer } from './service.js';

const EMPLOYEES = Number(process.env.BENCH_TOOLS_EMPLOYEES ?? 2000);
const CLAIM_BATCHES = Number(process.env.BENCH_TOOLS_CLAIM_BATCHES ?? 15);
const BULK_SECONDS = Number(process.env.BENCH_TOOLS_BULK_SECONDS ?? 8);
const BULK_CONCURRENCY = Number(process.env.BENCH_TOOLS_CONCURRENCY ?? 8);
const TARGETS = { bulkDeliveriesPerSec: 5000, claimBatchP50Ms: 150 };
// Each tools-token has its own 60/min window: enough tokens that no request is refused (429), and
// each token is used at most 55 times in the run (a scenario that reaches that stops early: `*`).
const TOOLS_TOKENS = Number(process.env.BENCH_TOOLS_TOKENS ?? 48);
const PER_TOKEN = 55;
const log = (m: string) => process.stderr.write(`[bench:tools] ${m}\n`);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

async function post(url: string, token: string, body: unknown): Promise<{ status: number; json: any; ms: number }> {
  const t = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  return { status: res.status, json, ms: performance.now() - t };
}

async function main(): Promise<number> {
  const run = randomBytes(3).toString('hex');
  const db = await createDatabase();
  const dbName = db.url.replace(/^.*\//, '').replace(/\?.*$/, '');
  let server: BenchServer | undefined;
  try {
    server = await startBenchServer(db.url);
    const base = server.baseUrl;

    // Setup in-process: an admin, tools-tokens of one integrator (each has its own 60/min window),
    // employees with approvals assigned through the REST surface.
    const setup = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', DB_POOL_MAX: '16' }, 'bench'), { role: 'cli' });
    const op = async <T>(name: string, input: Record<string, unknown>): Promise<T> => {
      const r = await runOperator(setup, name, input);
      if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
      return r.output as T;
    };
    const admin = `admin-${run}@example.test`;
    await op('users.create', { email: admin, name: 'Bench admin', role: 'admin' });
    const integrator = `bench-${run}`;
    const tools: { token: string; catalogSlug: string }[] = [];
    for (let i = 0; i < TOOLS_TOKENS; i++) tools.push(await op('tokens.create_tools', { owner: admin, integrator, name: `bench ${i}` }));
    let uses = 0; // requests so far, spread round-robin over the tokens
    const nextToken = () => (uses < TOOLS_TOKENS * PER_TOKEN ? tools[uses++ % TOOLS_TOKENS]!.token : undefined);
    const catalogSlug = tools[0]!.catalogSlug;
    const emails = Array.from({ length: EMPLOYEES }, (_, i) => `emp-${run}-${i}@example.test`);
    const t0 = performance.now();
    for (let i = 0; i < emails.length; i += 50) await Promise.all(emails.slice(i, i + 50).map((email) => op('users.create', { email, name: 'Employee' })));
    // Approvals are setup, not the measured path: written in one statement (as an admin assign would).
    await setup.orm.em.getConnection().execute(
      `with item as (select id from catalog_items where slug = ?), admin as (select id from users where email = ?),
            req as (insert into catalog_requests (id, user_id, catalog_item_id, status, requested_at, reviewed_at, reviewed_by_user_id, updated_at)
                    select gen_random_uuid(), u.id, item.id, 'approved', now(), now(), admin.id, now() from users u, item, admin where u.email like ? returning id, user_id, catalog_item_id)
       insert into access_assets (id, user_id, catalog_item_id, request_id, status, created_at) select gen_random_uuid(), user_id, catalog_item_id, id, 'active', now() from req`,
      [catalogSlug, admin, `emp-${run}-%`],
    );
    await setup.close();
    log(`setup: ${EMPLOYEES} approved employees in ${Math.round(performance.now() - t0)} ms`);

    // 1. Claim batch of 100 (fresh mints) -> latency per request.
    const claimMs: number[] = [];
    let claimFailures = 0;
    const claimCpu0 = cpuSnap(server.proc.pid, dbName);
    for (let b = 0; b < CLAIM_BATCHES; b++) {
      const claims = emails.slice(b * 100, b * 100 + 100).map((email) => ({ email }));
      const r = await post(`${base}/api/v1/tokens/claim/batch`, nextToken()!, { claims });
      if (r.status !== 200) throw new Error(`claim batch ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
      claimFailures += (r.json.results as { ok: boolean }[]).filter((x) => !x.ok).length;
      claimMs.push(r.ms);
    }
    const claimCpu = cpuPerRequest(claimCpu0, cpuSnap(server.proc.pid, dbName), claimMs.length);
    const claimed = emails.slice(0, CLAIM_BATCHES * 100);

    // 2. Bulk fan-out, 100 pre-claimed recipients per request, new event ids.
    const bulk = async (recipientsOf: (n: number) => string[], seconds: number) => {
      const ms: number[] = [];
      let deliveries = 0;
      let errors = 0;
      let n = 0;
      let capped = false;
      const deadline = performance.now() + seconds * 1000;
      const started = performance.now();
      const cpu0 = cpuSnap(server!.proc.pid, dbName);
      await Promise.all(
        Array.from({ length: BULK_CONCURRENCY }, async () => {
          while (performance.now() < deadline) {
            const i = n++;
            const recipients = recipientsOf(i);
            if (recipients.length === 0) return;
            const token = nextToken();
            if (!token) {
              capped = true;
              return;
            }
            const body = {
              event: {
                spec_version: '2',
                event_id: `bulk-${run}-${i}`,
                event_type: `${integrator}.bench.fanout`,
                severity: 'info',
                title: `Bench ${i}`,
                occurred_at: new Date().toISOString(),
              },
              recipients: recipients.map((email) => ({ type: 'email', email })),
            };
            const r = await post(`${base}/api/v1/events/bulk`, token, body);
            if (r.status !== 202) {
              errors += 100;
              continue;
            }
            for (const row of r.json.results as { deliveryId?: string }[])
              if (row.deliveryId) deliveries++;
              else errors++;
            ms.push(r.ms);
          }
        }),
      );
      const cpu = cpuPerRequest(cpu0, cpuSnap(server!.proc.pid, dbName), ms.length);
      return { requests: ms.length, deliveries, errors, seconds: (performance.now() - started) / 1000, p50: pct(ms, 50), p99: pct(ms, 99), cpu, capped };
    };
    const preclaimed = await bulk((i) => claimed.slice((i * 100) % claimed.length, ((i * 100) % claimed.length) + 100), BULK_SECONDS);
    // 3. Bulk with inline auto-claim: every request names 100 approved employees without a token.
    const fresh = emails.slice(claimed.length);
    const auto = await bulk((i) => fresh.slice(i * 100, i * 100 + 100), BULK_SECONDS);

    const rows = [
      {
        scenario: 'claim batch (100 mints)',
        requests: claimMs.length,
        'per s': '-',
        'p50 ms': pct(claimMs, 50).toFixed(0),
        'p99 ms': pct(claimMs, 99).toFixed(0),
        failures: claimFailures,
        ...cpuColumns(claimCpu),
      },
      {
        scenario: `bulk 100, pre-claimed${preclaimed.capped ? ' *' : ''}`,
        requests: preclaimed.requests,
        'per s': `${Math.round(preclaimed.deliveries / preclaimed.seconds)} deliveries`,
        'p50 ms': preclaimed.p50.toFixed(0),
        'p99 ms': preclaimed.p99.toFixed(0),
        failures: preclaimed.errors,
        ...cpuColumns(preclaimed.cpu),
      },
      {
        scenario: `bulk 100, auto-claim${auto.capped ? ' *' : ''}`,
        requests: auto.requests,
        'per s': `${Math.round(auto.deliveries / auto.seconds)} deliveries`,
        'p50 ms': auto.p50.toFixed(0),
        'p99 ms': auto.p99.toFixed(0),
        failures: auto.errors,
        ...cpuColumns(auto.cpu),
      },
    ];
    console.table(rows);
    console.log('cpu columns: CPU ms per request (one request = one batch of 100 claims or one bulk of 100 recipients)');
    if (preclaimed.capped || auto.capped)
      console.log(`* stopped early: every tools-token used ${PER_TOKEN} times (BENCH_TOOLS_TOKENS=${TOOLS_TOKENS}); the rate is still right`);
    const bulkRate = preclaimed.deliveries / preclaimed.seconds;
    console.log(
      `target bulk fan-out >= ${TARGETS.bulkDeliveriesPerSec} deliveries/s: ${Math.round(bulkRate)} -> ${bulkRate >= TARGETS.bulkDeliveriesPerSec ? 'PASS' : 'MISS'}`,
    );
    console.log(
      `target claim batch of 100 p50 <= ${TARGETS.claimBatchP50Ms} ms: ${pct(claimMs, 50).toFixed(0)} ms -> ${pct(claimMs, 50) <= TARGETS.claimBatchP50Ms ? 'PASS' : 'MISS'}`,
    );
    return preclaimed.errors + auto.errors + claimFailures > 0 ? 1 : 0;
  } finally {
    await server?.stop();
    await db.drop().catch(() => undefined);
  }
}

runBench(main);
