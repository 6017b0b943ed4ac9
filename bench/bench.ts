// `npm run bench`: throughput and latency of the event publish path (POST /api/v1/events) against
// a real PostgreSQL + Redis, with the server in a child process: new, nudged and repeat events, a
// bare Fastify ceiling and the worker's drain rate. What each scenario does and how to read the
// output: bench/README.md.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon, { type Result } from 'autocannon';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import pg from 'pg';
import { createDatabase, REDIS_URL } from '../test/helpers/harness.js';
import { cpuColumns, cpuPerRequest, cpuSnap, type CpuPerRequest } from './cpu.js';
import { freePort, profileFlags, spawnChild, startFlags, stopChild, waitFor200, type Child, mapLimit } from './service.js';

const num = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt);

const CONNECTIONS = num('BENCH_CONNECTIONS', 50);
const DURATION_S = num('BENCH_DURATION', 10);
/** Token budget per scenario is sized for these rates; a faster server ends the scenario early (noted). */
const NEW_MAX_RPS = num('BENCH_NEW_MAX_RPS', 10000);
const REPEAT_MAX_RPS = num('BENCH_REPEAT_MAX_RPS', 16000);
const PER_TOKEN = 55; // < 60/min: the rate limit is never reached
const ONLY = new Set((process.env.BENCH_ONLY ?? 'new,nudges,repeat,bare,drain').split(',').map((s) => s.trim()));
const DRAIN_N = num('BENCH_DRAIN_N', 20000);
/** Seconds of untimed load before the first scenario (JIT, pooled connections, prepared statements). */
const WARMUP_S = num('BENCH_WARMUP', 3);

const TARGETS = { newRps: 3000, newP99Ms: 30, repeatRps: 8000, rssMb: 300, nudgedRatio: 0.85, drainPerS: 2000 };

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

// ---------------------------------------------------------------------------------------------
// Child processes

// ---------------------------------------------------------------------------------------------
// RSS of the server child, sampled from /proc

class RssSampler {
  peakKb = 0;
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly pid: number) {}
  private read(field: 'VmRSS' | 'VmHWM'): number {
    try {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'));
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  }
  start(): void {
    this.timer ??= setInterval(() => (this.peakKb = Math.max(this.peakKb, this.read('VmRSS'))), 100);
  }
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
  /** Kernel's own high-water mark (includes boot and migrations). */
  hwmKb(): number {
    return this.read('VmHWM');
  }
}

// ---------------------------------------------------------------------------------------------
// CPU accounting from /proc (bench/cpu.ts): where the machine's CPU went during a scenario, in ms
// per request: service vs PostgreSQL (this bench's database) vs Redis vs the load generator vs
// everything else (other jobs on the box).

let benchDbName = '';

// ---------------------------------------------------------------------------------------------
// Load

interface Slot {
  auth: string;
  eventId: string;
}

function eventBody(eventId: string, occurredAt: string): string {
  return JSON.stringify({
    spec_version: '2',
    event_id: eventId,
    event_type: 'personal.build.failed',
    severity: 'warn',
    title: 'Build failed on main',
    summary: 'bench event',
    occurred_at: occurredAt,
  });
}

interface ScenarioResult {
  name: string;
  expected: number;
  result: Result;
  budget: number;
  overflow: number;
  cpu: CpuPerRequest;
}

/** Runs autocannon over `slots` (each used at most once; the run stops early when they run out). */
async function load(
  name: string,
  url: string,
  slots: Slot[] | null,
  expected: number,
  occurredAt: string,
  servicePid: number | undefined,
  durationS = DURATION_S,
): Promise<ScenarioResult> {
  let next = 0;
  const before = cpuSnap(servicePid, benchDbName);
  let overflow = 0;
  const budget = slots ? slots.length - CONNECTIONS : 0; // a little headroom for prebuilt requests
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: durationS,
    timeout: 10,
    ...(slots ? { maxOverallRequests: budget } : {}),
    requests: [
      {
        method: 'POST',
        path: '/api/v1/events',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => {
          if (!slots) return { ...req, body: eventBody(`bare-${next++}`, occurredAt) };
          if (next >= slots.length) overflow++;
          const s = slots[next++ % slots.length]!;
          return { ...req, headers: { ...req.headers, authorization: s.auth }, body: eventBody(s.eventId, occurredAt) };
        },
      },
    ],
  });
  const cpu = cpuPerRequest(before, cpuSnap(servicePid, benchDbName), result.requests.total);
  return { name, expected, result, budget, overflow, cpu };
}

/** Waits (up to 2 min) until no nudge is pending: the outbox is empty and no retry job is open. */
async function waitNudgesIdle(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const idle = async () => {
      const { rows } = await c.query(
        `select (select count(*) from nudge_outbox)::int + (select count(*) from pgboss.job where name in ('nudges', 'nudges-parked') and state in ('created', 'retry', 'active'))::int as n`,
      );
      return rows[0].n === 0;
    };
    for (const deadline = Date.now() + 120_000; !(await idle()) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
  } finally {
    await c.end();
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const runId = randomBytes(4).toString('hex');
  const children: Child[] = [];
  let db: Awaited<ReturnType<typeof createDatabase>> | undefined;
  let rss: RssSampler | undefined;
  const cleanup = async () => {
    rss?.stop();
    for (const c of children) await stopChild(c).catch(() => undefined);
    await db?.drop().catch((err) => log(`could not drop database: ${(err as Error).message}`));
    db = undefined;
  };
  const onSignal = () => void cleanup().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    // 1. Database, service child, tokens
    db = await createDatabase();
    benchDbName = db.url.replace(/^.*\//, '');
    log(`database ${benchDbName}`);
    const [port, grpcPort, barePort, rxPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    // The chat webhook receiver of the nudged and drain scenarios (its own process).
    const receiverUrl = `http://127.0.0.1:${rxPort}`;
    const needReceiver = ONLY.has('nudges') || ONLY.has('drain');
    if (needReceiver) {
      const rx = spawnChild('receiver', ['--import', 'tsx', 'bench/receiver.ts'], { PORT: String(rxPort) });
      children.push(rx);
      await waitFor200(`${receiverUrl}/count`, rx);
    }
    const rxCount = async () => (await (await fetch(`${receiverUrl}/count`)).json()) as { hits: number; distinct: number };
    const serverEnv: Record<string, string> = {
      PORT: String(port),
      GRPC_PORT: String(grpcPort),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      // The receiver is local: allow plain http to loopback for it (never a production setting).
      NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1',
      PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1',
    };
    // The service runs with the V8 flags `npm start` gives it (package.json "start"), so RSS and speed are the shipped ones.
    const nodeArgs = [...startFlags(), ...profileFlags()];
    const server = spawnChild('service', [...nodeArgs, '--import', 'tsx', 'src/main.ts'], serverEnv);
    children.push(server);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitFor200(`${baseUrl}/api/v1/health`, server);
    rss = new RssSampler(server.proc.pid!);
    log(`service pid ${server.proc.pid} on ${baseUrl}${process.env.DB_POOL_MAX ? ` (DB_POOL_MAX=${process.env.DB_POOL_MAX})` : ''}`);

    const nNew = ONLY.has('new') ? Math.ceil((NEW_MAX_RPS * DURATION_S + 2 * CONNECTIONS) / PER_TOKEN) : 0;
    const nNudge = ONLY.has('nudges') ? Math.ceil((NEW_MAX_RPS * DURATION_S + 2 * CONNECTIONS) / PER_TOKEN) : 0;
    const nRepeat = ONLY.has('repeat') ? Math.ceil((REPEAT_MAX_RPS * DURATION_S + 2 * CONNECTIONS) / (PER_TOKEN - 1)) : 0;
    const nWarm = WARMUP_S > 0 ? Math.ceil((NEW_MAX_RPS * WARMUP_S + 2 * CONNECTIONS) / PER_TOKEN) : 0;
    const t0 = Date.now();
    const setup = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', DB_POOL_MAX: '16' }, 'bench'), { role: 'cli' });
    let tokens: string[];
    try {
      tokens = await mapLimit(Array.from({ length: nNew + nNudge + nRepeat + nWarm }), 16, async (_, i) => {
        const email = `bench-${runId}-${i}@example.test`;
        const u = await runOperator(setup, 'users.create', { email, name: `Bench ${i}` });
        if (!u.ok) throw new Error(`users.create: ${JSON.stringify(u.error)}`);
        // Warm-up users nudge too when the receiver runs, so the dispatch path is warm as well.
        if ((i >= nNew && i < nNew + nNudge) || (needReceiver && i >= nNew + nNudge + nRepeat)) {
          // A chat destination (Slack style) at the local receiver: every new event nudges.
          await setup.orm.em
            .fork()
            .getConnection()
            .execute(
              `insert into nudge_preferences (user_id, push_severities, chat_enabled, chat_url, chat_style, updated_at) values (?, '{critical,warn}', true, ?, 'slack', now())`,
              [(u.output as { userId: string }).userId, `${receiverUrl}/chat/${i}`],
            );
        }
        const t = await runOperator(setup, 'tokens.create_personal', { email, label: 'bench', daily_limit: 200 });
        if (!t.ok) throw new Error(`tokens.create_personal: ${JSON.stringify(t.error)}`);
        return `Bearer ${(t.output as { token: string }).token}`;
      });
    } finally {
      await setup.close();
    }
    log(`created ${tokens.length} users + personal tokens in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const newTokens = tokens.slice(0, nNew);
    const nudgeTokens = tokens.slice(nNew, nNew + nNudge);
    const repeatTokens = tokens.slice(nNew + nNudge, nNew + nNudge + nRepeat);
    const warmTokens = tokens.slice(nNew + nNudge + nRepeat);
    let nudgeBacklog: { sent: number; drainS: number } | undefined;
    let drain: { n: number; seconds: number; cpu: CpuPerRequest } | undefined;
    const occurredAt = new Date(Date.now() - 60_000).toISOString();
    const results: ScenarioResult[] = [];

    // 2. Pre-publish one event per repeat token (counts 1 against its window; also a warm-up).
    rss.start();
    if (repeatTokens.length > 0) {
      const t1 = Date.now();
      const statuses = new Map<number, number>();
      await mapLimit(repeatTokens, CONNECTIONS, async (auth, i) => {
        const res = await fetch(`${baseUrl}/api/v1/events`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: eventBody(`rep-${runId}-${i}`, occurredAt),
        });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      });
      log(`pre-published ${repeatTokens.length} events in ${((Date.now() - t1) / 1000).toFixed(1)} s: ${JSON.stringify(Object.fromEntries(statuses))}`);
      if (statuses.get(202) !== repeatTokens.length) throw new Error('pre-publish did not answer 202 for every event');
    }

    // 2b. Warm-up: the same load as NEW for WARMUP_S seconds on tokens of its own, not counted;
    // then the nudges it queued are left to drain, so every scenario measures a warm service.
    if (nWarm > 0) {
      const slots: Slot[] = Array.from({ length: nWarm * PER_TOKEN }, (_, i) => ({ auth: warmTokens[i % nWarm]!, eventId: `warm-${runId}-${i}` }));
      const w = await load('warm-up', baseUrl, slots, 202, occurredAt, server.proc.pid, WARMUP_S);
      if (needReceiver) await waitNudgesIdle(db.url);
      log(
        `warm-up: ${w.result.requests.total} events in ${WARMUP_S} s (not counted; non-2xx ${w.result.non2xx})${needReceiver ? ', their nudges drained' : ''}`,
      );
    }

    // 3. NEW events: slot i -> token i mod n (round robin, <= 55 per token), fresh event_id.
    if (ONLY.has('new')) {
      const slots: Slot[] = Array.from({ length: nNew * PER_TOKEN }, (_, i) => ({ auth: newTokens[i % nNew]!, eventId: `new-${runId}-${i}` }));
      log(`NEW events: ${CONNECTIONS} connections, ${DURATION_S} s, budget ${slots.length - CONNECTIONS} requests over ${nNew} tokens`);
      results.push(await load('new events (202)', baseUrl, slots, 202, occurredAt, server.proc.pid));
    }

    // 3b. NUDGED events: as NEW, but every recipient has a chat destination; the service's worker
    // dispatches to the receiver while the load runs. Then wait until every nudge has arrived.
    if (ONLY.has('nudges')) {
      const before = await rxCount();
      const slots: Slot[] = Array.from({ length: nNudge * PER_TOKEN }, (_, i) => ({ auth: nudgeTokens[i % nNudge]!, eventId: `nudge-${runId}-${i}` }));
      log(
        `NUDGED events: ${CONNECTIONS} connections, ${DURATION_S} s, budget ${slots.length - CONNECTIONS} requests over ${nNudge} tokens with chat destinations`,
      );
      const s = await load('nudged events (202)', baseUrl, slots, 202, occurredAt, server.proc.pid);
      results.push(s);
      const expected = s.result.statusCodeStats['202']?.count ?? 0;
      const t1 = Date.now();
      const deadline = t1 + 180_000;
      let got = await rxCount();
      while (got.distinct - before.distinct < expected && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        got = await rxCount();
      }
      nudgeBacklog = { sent: got.distinct - before.distinct, drainS: (Date.now() - t1) / 1000 };
      log(
        `nudges: ${nudgeBacklog.sent}/${expected} arrived; the backlog after the load drained in ${nudgeBacklog.drainS.toFixed(1)} s (${got.hits - before.hits} requests)`,
      );
    }

    // 4. REPEAT events: slot i -> the pre-published event of token i mod n (<= 54 repeats each).
    if (ONLY.has('repeat')) {
      const n = repeatTokens.length;
      const slots: Slot[] = Array.from({ length: n * (PER_TOKEN - 1) }, (_, i) => ({ auth: repeatTokens[i % n]!, eventId: `rep-${runId}-${i % n}` }));
      log(`REPEAT events: ${CONNECTIONS} connections, ${DURATION_S} s, budget ${slots.length - CONNECTIONS} requests over ${n} tokens`);
      results.push(await load('repeat events (200)', baseUrl, slots, 200, occurredAt, server.proc.pid));
    }
    // 4b. DRAIN: N deliveries (with inbox rows) for the users with a chat destination are written
    // first; then N outbox rows are committed in one statement and timed until the receiver has
    // them all: outbox claim -> HTTP POST -> settle (delete).
    if (ONLY.has('drain')) {
      if (!ONLY.has('nudges')) throw new Error('the drain scenario sends to the nudged scenario users: add nudges to BENCH_ONLY');
      await waitNudgesIdle(db.url);
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        await c.query(
          `with src as (select t.id as token_id, t.integrator_id, t.owner_user_id from inbound_tokens t join nudge_preferences p on p.user_id = t.owner_user_id),
           d as (insert into deliveries (id, token_id, integrator_id, recipient_user_id, event_id, event_type, severity, title, occurred_at, created_at, last_event_at, fire_count)
                 select gen_random_uuid(), src.token_id, src.integrator_id, src.owner_user_id, 'drain-' || g, 'personal.bench.drain', 'critical', 'Drain ' || g, now(), now(), now(), 1
                   from src cross join generate_series(1, ceil($1::numeric / greatest(1, (select count(*) from src)))::int) g limit $1
                 returning id, recipient_user_id, title)
           insert into notifications (id, user_id, type, title, delivery_id, created_at, updated_at) select gen_random_uuid(), recipient_user_id, 'system', title, id, now(), now() from d`,
          [DRAIN_N],
        );
        const before = await rxCount();
        const snap = cpuSnap(server.proc.pid, benchDbName);
        const t0 = Date.now();
        const ins = await c.query(
          `insert into nudge_outbox (id, delivery_id, user_id, channel, created_at)
           select gen_random_uuid(), id, recipient_user_id, 'chat', now() from deliveries where event_type = 'personal.bench.drain'`,
        );
        const n = ins.rowCount ?? 0;
        log(`DRAIN: ${n} nudges committed to the outbox`);
        let got = await rxCount();
        for (const deadline = Date.now() + 300_000; got.distinct - before.distinct < n && Date.now() < deadline; ) {
          await new Promise((r) => setTimeout(r, 20));
          got = await rxCount();
        }
        const seconds = (Date.now() - t0) / 1000;
        const sent = got.distinct - before.distinct;
        drain = { n: sent, seconds, cpu: cpuPerRequest(snap, cpuSnap(server.proc.pid, benchDbName), Math.max(1, sent)) };
        log(`DRAIN: ${sent}/${n} arrived in ${seconds.toFixed(2)} s (${got.hits - before.hits} requests)`);
      } finally {
        await c.end();
      }
    }
    rss.stop();
    const hwmKb = rss.hwmKb();
    // Let requests whose clients autocannon already dropped finish before the service shuts down.
    await new Promise((r) => setTimeout(r, 1000));
    if (process.env.BENCH_CPU_PROF) log(`cpu profile of the service will be written to ${process.env.BENCH_CPU_PROF}`);
    await stopChild(server);

    // 5. Bare Fastify ceiling, in its own child process.
    if (ONLY.has('bare')) {
      const bare = spawnChild('bare-fastify', ['--import', 'tsx', 'bench/bare-fastify.ts'], { PORT: String(barePort) });
      children.push(bare);
      await waitFor200(`http://127.0.0.1:${barePort}/health`, bare);
      if (WARMUP_S > 0) await load('bare warm-up', `http://127.0.0.1:${barePort}`, null, 200, occurredAt, bare.proc.pid, WARMUP_S);
      log(`BARE fastify: ${CONNECTIONS} connections, ${DURATION_S} s${WARMUP_S > 0 ? ` (after ${WARMUP_S} s of warm-up)` : ''}`);
      results.push(await load('bare fastify (200)', `http://127.0.0.1:${barePort}`, null, 200, occurredAt, bare.proc.pid));
      await stopChild(bare);
    }

    return report(results, rss.peakKb, hwmKb, server.tail, { nudgeBacklog, drain });
  } finally {
    await cleanup();
  }
}

interface NudgeFigures {
  nudgeBacklog?: { sent: number; drainS: number };
  drain?: { n: number; seconds: number; cpu: CpuPerRequest };
}

function report(results: ScenarioResult[], peakKb: number, hwmKb: number, serverTail: string[], nf: NudgeFigures = {}): number {
  const rate = (s: ScenarioResult) => {
    const r = s.result;
    // A scenario that used up its token budget stopped early: the per-second mean then includes a
    // partial last second, so use completed / elapsed instead.
    return capped(s) ? r.requests.total / r.duration : r.requests.average;
  };
  const capped = (s: ScenarioResult) => s.budget > 0 && s.result.requests.total >= s.budget - CONNECTIONS;
  const find = (prefix: string) => results.find((s) => s.name.startsWith(prefix));

  const rows = results.map((s) => {
    const r = s.result;
    return {
      scenario: s.name,
      requests: String(r.requests.total),
      'req/s': rate(s).toFixed(0) + (capped(s) ? '*' : ''),
      'p50 ms': r.latency.p50.toFixed(1),
      'p99 ms': r.latency.p99.toFixed(1),
      'non-2xx': String(r.non2xx),
      'err/timeout': `${r.errors}/${r.timeouts}`,
      // CPU ms per request from /proc: where the machine went (2 cores = 2000 ms per second).
      ...cpuColumns(s.cpu),
    };
  });
  const cols = Object.keys(rows[0] ?? { scenario: '' }) as (keyof (typeof rows)[number])[];
  const width = (c: (typeof cols)[number]) => Math.max(c.length, ...rows.map((r) => r[c].length));
  const labels = ['server peak RSS (MB)', 'new/s ÷ bare req/s'];
  const w0 = Math.max(width('scenario'), ...labels.map((l) => l.length));
  const line = (cells: Record<string, string>) => cols.map((c, i) => (i === 0 ? cells[c]!.padEnd(w0) : cells[c]!.padStart(width(c)))).join(' | ');

  const newS = find('new');
  const nudS = find('nudged');
  const repS = find('repeat');
  const bareS = find('bare');
  const peakMb = peakKb / 1024;
  out('');
  out(line(Object.fromEntries(cols.map((c) => [c, c]))));
  out(cols.map((c, i) => '-'.repeat(i === 0 ? w0 : width(c))).join('-|-'));
  for (const r of rows) out(line(r));
  out(`${labels[0]!.padEnd(w0)} | ${`${peakMb.toFixed(0)} (VmHWM incl. boot ${(hwmKb / 1024).toFixed(0)})`}`);
  if (newS && bareS) out(`${labels[1]!.padEnd(w0)} | ${(rate(newS) / rate(bareS)).toFixed(3)}`);
  if (newS && nudS) out(`${'nudged/s ÷ new/s'.padEnd(w0)} | ${(rate(nudS) / rate(newS)).toFixed(3)}`);
  if (nf.nudgeBacklog)
    out(`${'nudges after the load'.padEnd(w0)} | ${nf.nudgeBacklog.sent} arrived; backlog drained ${nf.nudgeBacklog.drainS.toFixed(1)} s after the load ended`);
  if (nf.drain) {
    const c = nf.drain.cpu;
    out(
      `${'worker drain'.padEnd(w0)} | ${nf.drain.n} nudges in ${nf.drain.seconds.toFixed(2)} s = ${(nf.drain.n / nf.drain.seconds).toFixed(0)}/s (cpu ms per nudge: svc ${c.service.toFixed(2)}, pg ${c.postgres.toFixed(2)}, receiver+other ${c.other.toFixed(2)})`,
    );
  }
  if (results.some(capped))
    out('* used up its token budget before the duration ended: the server is faster than the bench was sized for (BENCH_NEW_MAX_RPS / BENCH_REPEAT_MAX_RPS)');
  const noisy = results.filter((s) => s.cpu.other > 0.25 * s.cpu.busy);
  if (noisy.length > 0)
    out(
      `NOTE: other jobs used ${noisy.map((s) => `${((100 * s.cpu.other) / s.cpu.busy).toFixed(0)}%`).join(' / ')} of the busy CPU during ${noisy.map((s) => s.name.split(' (')[0]).join(' / ')}: figures are depressed by a shared machine`,
    );
  out('');

  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  if (newS) {
    out(`target new events >= ${TARGETS.newRps}/s        : ${rate(newS).toFixed(0)}/s -> ${verdict(rate(newS) >= TARGETS.newRps)}`);
    out(
      `target new events p99 <= ${TARGETS.newP99Ms} ms       : ${newS.result.latency.p99.toFixed(1)} ms -> ${verdict(newS.result.latency.p99 <= TARGETS.newP99Ms)}`,
    );
  }
  if (newS && nudS)
    out(
      `target nudged >= ${TARGETS.nudgedRatio} × new events   : ${(rate(nudS) / rate(newS)).toFixed(3)} -> ${verdict(rate(nudS) / rate(newS) >= TARGETS.nudgedRatio)}`,
    );
  if (nf.drain)
    out(
      `target worker drain >= ${TARGETS.drainPerS}/s       : ${(nf.drain.n / nf.drain.seconds).toFixed(0)}/s -> ${verdict(nf.drain.n / nf.drain.seconds >= TARGETS.drainPerS)}`,
    );
  if (repS) out(`target repeat events >= ${TARGETS.repeatRps}/s     : ${rate(repS).toFixed(0)}/s -> ${verdict(rate(repS) >= TARGETS.repeatRps)}`);
  if (newS || repS) out(`target server RSS <= ${TARGETS.rssMb} MB          : ${peakMb.toFixed(0)} MB -> ${verdict(peakMb <= TARGETS.rssMb)}`);

  // A run with errors, non-2xx (429 included) or unexpected statuses measured something else.
  const invalid = results.filter((s) => {
    const r = s.result;
    return r.errors > 0 || r.timeouts > 0 || r.non2xx > 0 || s.overflow > 0 || r.requests.total !== (r.statusCodeStats[String(s.expected)]?.count ?? 0);
  });
  if (invalid.length > 0) {
    out('');
    for (const s of invalid)
      out(
        `WARNING: INVALID RUN - ${s.name}: statuses ${JSON.stringify(s.result.statusCodeStats)}, errors ${s.result.errors}, timeouts ${s.result.timeouts}, token slot overflow ${s.overflow}`,
      );
    if (serverTail.length > 0) out(`last service log lines:\n${serverTail.slice(-10).join('\n')}`);
    return 1;
  }
  return 0;
}

function out(s: string): void {
  process.stdout.write(`${s}\n`);
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`[bench] broken run: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
