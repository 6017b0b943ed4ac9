// `npm run soak`: several service processes behind a real load balancer (HAProxy), mixed load
// through it, one node killed with SIGKILL and restarted mid-run. A measurement with verdicts, not a
// test: it prints a table, writes a JSON report, and exits 1 when a verdict fails. What it does and
// how to read the report: bench/README.md, "soak".
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import pg from 'pg';
import { Pool } from 'undici';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import { EventService, InboundEventSchema } from '../gen/fluxdesk/events/v1/events_pb.js';
import { createDatabase, REDIS_URL } from '../test/helpers/harness.js';
import { cpuSnap } from './cpu.js';
import { freePort, spawnChild, startFlags, stopChild, waitFor200, type Child, mapLimit } from './service.js';
import { findOrInstallHaproxy, serverStates, startHaproxy, type Balancer, type BalancerNode } from './soak/haproxy.js';
import { Histogram } from './soak/histogram.js';

const num = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt);

const DURATION_S = num('SOAK_DURATION_S', 600);
const RATE = num('SOAK_RATE', 3000);
const REPEAT_RATE = num('SOAK_REPEAT_RATE', Math.round(RATE * 0.1));
const READ_RATE = num('SOAK_READ_RATE', Math.round(RATE * 0.1));
const MCP_RATE = num('SOAK_MCP_RATE', Math.round(RATE * 0.05));
const GRPC_RATE = num('SOAK_GRPC_RATE', Math.round(RATE * 0.02));
const NODES = num('SOAK_NODES', 3);
const CONNECTIONS = num('SOAK_CONNECTIONS', 64);
const KILL_AT = num('SOAK_KILL_AT', 0.4);
const LIMIT_TOKENS = num('SOAK_LIMIT_TOKENS', 20);
const LIMIT_SENDS = num('SOAK_LIMIT_SENDS', 70);
const NUDGE_SHARE = num('SOAK_NUDGE_SHARE', 0.25);
const L7_RETRY = process.env.SOAK_L7_RETRY !== '0';
const DB_POOL_MAX = process.env.SOAK_DB_POOL_MAX ?? '8';
const OUT = process.env.SOAK_OUT ?? path.join(os.tmpdir(), `fluxdesk-soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);

/** Uses of one token per BUDGET_WINDOW_MS: below the 60/min window, with a second of margin. */
const PER_TOKEN = 55;
const BUDGET_WINDOW_MS = 61_000;
/** The publish window the limit rounds prove. */
const LIMIT_PER_MINUTE = 60;
/** The service counts at most 500 inbox events per user and day before it stops nudging. */
const EVENTS_PER_USER = 450;

const log = (msg: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Child processes (nodes, receiver)

const TICK_MS = 10; // USER_HZ = 100
function procTicks(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return undefined;
  }
}
function rssKb(pid: number | undefined): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** CPU ticks per process, the last value seen kept for a process that died (the killed node). */
class TickBook {
  private readonly last = new Map<number, number>();
  constructor(private readonly pids: () => (number | undefined)[]) {}
  sample(): number {
    for (const pid of this.pids()) {
      const t = procTicks(pid);
      if (pid && t !== undefined) this.last.set(pid, t);
    }
    let sum = 0;
    for (const v of this.last.values()) sum += v;
    return sum;
  }
}

// ---------------------------------------------------------------------------------------------
// Load

type Kind = 'new' | 'repeat' | 'read' | 'mcp' | 'grpc' | 'limit';
const KINDS: Kind[] = ['new', 'repeat', 'read', 'mcp', 'grpc', 'limit'];

interface Failure {
  kind: Kind;
  start: number;
  end: number;
  status: number;
  error?: string;
  node?: string;
  body?: string;
}

class Stats {
  readonly statuses = new Map<Kind, Map<string, number>>(KINDS.map((k) => [k, new Map()]));
  readonly latency = new Map<Kind, Histogram>(KINDS.map((k) => [k, new Histogram()]));
  readonly byNode = new Map<string, number>();
  readonly failures: Failure[] = [];
  readonly unexpected: Failure[] = [];
  rpcErrors = 0;
  count(kind: Kind, status: string): void {
    const m = this.statuses.get(kind)!;
    m.set(status, (m.get(status) ?? 0) + 1);
  }
  total(kind: Kind): number {
    let n = 0;
    for (const v of this.statuses.get(kind)!.values()) n += v;
    return n;
  }
}

function eventBody(eventId: string, occurredAt: string): string {
  return JSON.stringify({
    spec_version: '2',
    event_id: eventId,
    event_type: 'personal.soak.check',
    severity: 'warn',
    title: 'Soak check failed',
    summary: 'soak event',
    occurred_at: occurredAt,
  });
}

/** A token that may be used PER_TOKEN times per BUDGET_WINDOW_MS (a ring of its last send times). */
class TokenBudget {
  private readonly ring: Float64Array;
  private readonly head: Uint16Array;
  private cursor = 0;
  constructor(readonly n: number) {
    this.ring = new Float64Array(n * PER_TOKEN).fill(-Infinity);
    this.head = new Uint16Array(n);
  }
  /** The next token in round-robin order if it has budget left, else -1 (all are about as used). */
  take(now: number): number {
    const t = this.cursor;
    const slot = t * PER_TOKEN + this.head[t]!;
    if (this.ring[slot]! > now - BUDGET_WINDOW_MS) return -1;
    this.ring[slot] = now;
    this.head[t] = (this.head[t]! + 1) % PER_TOKEN;
    this.cursor = (t + 1) % this.n;
    return t;
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const runId = randomBytes(3).toString('hex');
  const children: Child[] = [];
  let db: Awaited<ReturnType<typeof createDatabase>> | undefined;
  let lb: Balancer | undefined;
  const timers: NodeJS.Timeout[] = [];
  const cleanup = async () => {
    for (const t of timers) clearInterval(t);
    await lb?.stop().catch(() => undefined);
    await Promise.all(children.map((c) => stopChild(c, 30_000).catch(() => undefined)));
    if (process.env.SOAK_KEEP_DB !== '1') await db?.drop().catch((err) => log(`could not drop database: ${(err as Error).message}`));
    db = undefined;
  };
  const onSignal = () => void cleanup().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const haproxy = findOrInstallHaproxy(log);
    log(`HAProxy: ${haproxy.how}`);

    // 1. Database, receiver, nodes (the first alone: it applies the migrations), balancer.
    db = await createDatabase();
    const dbName = db.url.replace(/^.*\//, '');
    log(`database ${dbName}`);
    const rxPort = await freePort();
    const receiverUrl = `http://127.0.0.1:${rxPort}`;
    const rx = spawnChild('receiver', ['--import', 'tsx', 'bench/soak/receiver.ts'], { PORT: String(rxPort) });
    children.push(rx);
    await waitFor200(`${receiverUrl}/count`, rx, 90_000);

    const nodeDefs: (BalancerNode & { env: Record<string, string> })[] = [];
    for (let i = 1; i <= NODES; i++) {
      const port = await freePort();
      const grpcPort = await freePort();
      nodeDefs.push({
        name: `n${i}`,
        port,
        grpcPort,
        env: {
          PORT: String(port),
          GRPC_PORT: String(grpcPort),
          HOST: '127.0.0.1',
          DATABASE_URL: db.url,
          REDIS_URL,
          WORKER: 'on',
          LOG_LEVEL: process.env.SOAK_LOG_LEVEL ?? 'warn',
          DB_POOL_MAX,
          // The receiver is local: plain http to loopback for it (never a production setting).
          NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1',
          PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1',
          EGRESS_ALLOW_HOSTS: '127.0.0.1',
        },
      });
    }
    const nodeArgs = [...startFlags(), '--import', 'tsx', 'src/main.ts'];
    const nodes = new Map<string, Child>();
    const everyNodePid: number[] = [];
    const startNode = (d: (typeof nodeDefs)[number]) => {
      const c = spawnChild(d.name, nodeArgs, d.env);
      children.push(c);
      nodes.set(d.name, c);
      everyNodePid.push(c.proc.pid!);
      return c;
    };
    await waitFor200(`http://127.0.0.1:${nodeDefs[0]!.port}/api/v1/ready`, startNode(nodeDefs[0]!), 90_000);
    await Promise.all(nodeDefs.slice(1).map((d) => waitFor200(`http://127.0.0.1:${d.port}/api/v1/ready`, startNode(d), 90_000)));
    log(`${NODES} nodes ready: ${nodeDefs.map((d) => `${d.name} :${d.port} (gRPC :${d.grpcPort}) pid ${nodes.get(d.name)!.proc.pid}`).join(', ')}`);

    const lbPorts = { http: await freePort(), grpc: await freePort(), stats: await freePort() };
    lb = startHaproxy(haproxy.binary, haproxy.how, nodeDefs, lbPorts, L7_RETRY);
    for (const deadline = Date.now() + 20_000; ; ) {
      const st = await serverStates(lb.statsUrl).catch(() => ({}) as Record<string, string>);
      if (nodeDefs.every((d) => st[`nodes/${d.name}`] === 'UP')) break;
      if (lb.proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`HAProxy did not see every node UP: ${JSON.stringify(st)}\n${lb.tail.join('\n')}`);
      await sleep(100);
    }
    log(`HAProxy pid ${lb.proc.pid}: HTTP ${lb.httpUrl}, gRPC h2c ${lb.grpcUrl}, stats ${lb.statsUrl} (config ${lb.configPath}); every node UP`);

    // 2. Users and tokens through the operator operations (not metered), 16 at a time.
    const publishRate = RATE + REPEAT_RATE + GRPC_RATE;
    const nPool = Math.max(
      Math.ceil((1.15 * publishRate * BUDGET_WINDOW_MS) / 1000 / PER_TOKEN),
      Math.ceil(((RATE + GRPC_RATE) * DURATION_S) / EVENTS_PER_USER),
      10,
    );
    const nChat = Math.ceil(nPool * NUDGE_SHARE);
    const nAgent = Math.max(1, Math.ceil((1.15 * MCP_RATE * BUDGET_WINDOW_MS) / 1000 / PER_TOKEN));
    const nLimit = 2 * LIMIT_TOKENS;
    const t0 = Date.now();
    const setup = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', DB_POOL_MAX: '16' }, 'bench'), { role: 'cli' });
    let poolTokens: string[];
    let agentTokens: string[];
    let limitTokens: string[];
    try {
      const all = await mapLimit(Array.from({ length: nPool + nLimit }), 16, async (_, i) => {
        const email = `soak-${runId}-${i}@example.test`;
        const u = await runOperator(setup, 'users.create', { email, name: `Soak ${i}` });
        if (!u.ok) throw new Error(`users.create: ${JSON.stringify(u.error)}`);
        if (i < nChat) {
          await setup.orm.em
            .fork()
            .getConnection()
            .execute(
              `insert into nudge_preferences (user_id, push_severities, chat_enabled, chat_url, chat_style, updated_at) values (?, '{critical,warn}', true, ?, 'slack', now())`,
              [(u.output as { userId: string }).userId, `${receiverUrl}/chat/${i}`],
            );
        }
        const t = await runOperator(setup, 'tokens.create_personal', { email, label: 'soak', daily_limit: 1000 });
        if (!t.ok) throw new Error(`tokens.create_personal: ${JSON.stringify(t.error)}`);
        let agent: string | undefined;
        if (i < nAgent) {
          const a = await runOperator(setup, 'agent_tokens.create', { email, scopes: ['read:inbox'] });
          if (!a.ok) throw new Error(`agent_tokens.create: ${JSON.stringify(a.error)}`);
          agent = `Bearer ${(a.output as { token: string }).token}`;
        }
        return { personal: `Bearer ${(t.output as { token: string }).token}`, agent };
      });
      poolTokens = all.slice(0, nPool).map((x) => x.personal);
      agentTokens = all.slice(0, nAgent).map((x) => x.agent!);
      limitTokens = all.slice(nPool).map((x) => x.personal);
    } finally {
      await setup.close();
    }
    log(
      `created ${nPool + nLimit} users + personal tokens (${nChat} with a chat destination) and ${nAgent} agent tokens in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );

    // 3. Load through the balancer.
    const stats = new Stats();
    const pool = new Pool(lb.httpUrl, { connections: CONNECTIONS, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 });
    const occurredAt = new Date(Date.now() - 60_000).toISOString();
    const prefix = `sk${runId}-`;
    const limitPrefix = `lim${runId}-`;
    let seq = 0;
    const accepted: number[] = []; // seqs answered 2xx
    const answerLost: number[] = []; // seqs whose request failed (5xx / connection error)
    const lastSeq = new Int32Array(nPool).fill(-1);
    const lastDelivery: (string | undefined)[] = new Array(nPool);
    let nudgesExpected = 0;
    let degraded = 0;
    const limitResults = new Map<string, { accepted: number; refused: number; other: number; first_s: number; last_s: number }>();
    /** Each limit request's [start, end] (performance.now()) by token, to find those in flight at the kill. */
    const limitSpans = new Map<string, [number, number][]>();
    /** 2xx answers of first sends that said deduped: the balancer re-sent them after their node committed them and died. */
    const retriedAfterCommit: { kind: Kind; start: number; end: number }[] = [];
    const budget = new TokenBudget(nPool);
    const agentBudget = new TokenBudget(agentTokens.length);
    let inflight = 0;
    let stalls = 0;
    let readCursor = 0;
    let mcpN = 0;
    const T0 = performance.now();
    const nowS = () => (performance.now() - T0) / 1000;
    const epochAt = (perfMs: number) => performance.timeOrigin + perfMs;

    // The limit rounds have connections of their own (one per token): their bursts never queue the main load.
    const limitPool = new Pool(lb.httpUrl, { connections: Math.max(1, LIMIT_TOKENS), pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 });
    const send = async (
      kind: Kind,
      method: 'GET' | 'POST',
      reqPath: string,
      auth: string,
      body: string | undefined,
      expect: number,
      onOk?: (text: string) => void,
      limitKey?: string,
    ) => {
      if (kind !== 'limit') inflight++;
      const start = performance.now();
      let status = 0;
      let error: string | undefined;
      let node: string | undefined;
      let text = '';
      try {
        const res = await (kind === 'limit' ? limitPool : pool).request({
          method,
          path: reqPath,
          headers: body ? { authorization: auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } : { authorization: auth },
          body,
        });
        status = res.statusCode;
        node = res.headers['x-soak-node'] as string | undefined;
        text = await res.body.text();
      } catch (err) {
        error = (err as { code?: string }).code ?? (err as Error).message;
      }
      const end = performance.now();
      if (kind !== 'limit') inflight--;
      stats.latency.get(kind)!.add(end - start);
      stats.count(kind, error ? `error ${error}` : String(status));
      if (node) stats.byNode.set(node, (stats.byNode.get(node) ?? 0) + 1);
      if (limitKey) {
        const r = limitResults.get(limitKey) ?? { accepted: 0, refused: 0, other: 0, first_s: (start - T0) / 1000, last_s: 0 };
        r.last_s = Math.max(r.last_s, (end - T0) / 1000);
        // 200 (deduped) to a first send: stored once, by the node that died before answering.
        if (status === 202 || status === 200) r.accepted++;
        else if (status === 429) r.refused++;
        else r.other++;
        limitResults.set(limitKey, r);
        limitSpans.set(limitKey, [...(limitSpans.get(limitKey) ?? []), [start, end]]);
      }
      if (error || status >= 500) {
        // Bodies of the first failures only: a broken run may fail every request.
        stats.failures.push({ kind, start, end, status, error, node, body: stats.failures.length < 100 ? text.slice(0, 200) : undefined });
        return false;
      }
      if ((kind === 'new' || kind === 'limit') && status === 200) retriedAfterCommit.push({ kind, start, end });
      if (kind === 'limit' ? status !== 202 && status !== 200 && status !== 429 : status !== expect && !(kind === 'new' && status === 200)) {
        stats.unexpected.push({ kind, start, end, status, node, body: text.slice(0, 300) });
        return false;
      }
      onOk?.(text);
      return true;
    };

    // gRPC through the h2c frontend: one HTTP/2 session, many streams.
    let refusedStreamsRetried = 0;
    const grpcSessions = new Http2SessionManager(lb.grpcUrl);
    const grpc = createClient(EventService, createGrpcTransport({ baseUrl: lb.grpcUrl, sessionManager: grpcSessions }));
    const sendGrpc = async (t: number) => {
      const s = seq++;
      inflight++;
      const start = performance.now();
      let outcome = 'ok';
      try {
        const call = () =>
          grpc.publish(
            {
              event: create(InboundEventSchema, {
                specVersion: '2',
                eventId: `${prefix}${s}`,
                eventType: 'personal.soak.check',
                severity: 'warn',
                title: 'Soak check failed',
                summary: 'soak event',
                occurredAt,
              }),
            },
            { headers: { authorization: poolTokens[t]! }, timeoutMs: 30_000 },
          );
        // A stream the balancer refused (RST_STREAM REFUSED_STREAM: not processed, RFC 9113 §8.7) is
        // sent once more, as gRPC clients' transparent retry does (grpc-go, grpc-java); counted apart.
        const res = await call().catch((err: unknown) => {
          if (!(err instanceof ConnectError) || !err.message.includes('REFUSED_STREAM')) throw err;
          refusedStreamsRetried++;
          return call();
        });
        accepted.push(s);
        if (res.delivery?.pushed) nudgesExpected++;
        if (res.delivery?.degraded) degraded++;
        if (!res.created) retriedAfterCommit.push({ kind: 'grpc', start, end: performance.now() });
      } catch (err) {
        const code = err instanceof ConnectError ? err.code : Code.Unknown;
        outcome = `grpc ${Code[code]}`;
        const f = { kind: 'grpc' as const, start, end: performance.now(), status: 0, error: outcome, body: (err as Error).message.slice(0, 200) };
        // Unavailable / internal / unknown / deadline: the gRPC side of a 5xx or a reset.
        if ([Code.Unavailable, Code.Internal, Code.Unknown, Code.DeadlineExceeded].includes(code)) {
          stats.failures.push(f);
          answerLost.push(s);
        } else stats.unexpected.push(f);
      }
      const end = performance.now();
      inflight--;
      stats.latency.get('grpc')!.add(end - start);
      stats.count('grpc', outcome);
    };

    const sendNew = (t: number) => {
      const s = seq++;
      void send('new', 'POST', '/api/v1/events', poolTokens[t]!, eventBody(`${prefix}${s}`, occurredAt), 202, (text) => {
        // 200 deduped on a first send: the balancer retried it after the first node committed it.
        const d = JSON.parse(text) as { deliveryId: string; pushed: boolean; degraded: boolean };
        accepted.push(s);
        lastSeq[t] = s;
        lastDelivery[t] = d.deliveryId;
        if (d.pushed) nudgesExpected++;
        if (d.degraded) degraded++;
      }).then((ok) => {
        if (!ok) answerLost.push(s);
      });
    };
    const sendRepeat = (t: number) => {
      if (lastSeq[t]! < 0) return sendNew(t); // no accepted event yet (the first seconds)
      void send('repeat', 'POST', '/api/v1/events', poolTokens[t]!, eventBody(`${prefix}${lastSeq[t]}`, occurredAt), 200);
    };
    const sendRead = () => {
      for (let k = 0; k < nPool; k++) {
        const t = (readCursor = (readCursor + 1) % nPool);
        if (lastDelivery[t]) return void send('read', 'GET', `/api/v1/events/${lastDelivery[t]}`, poolTokens[t]!, undefined, 200);
      }
    };
    const sendMcp = (a: number) => {
      const call = mcpN++ % 2 === 0 ? { name: 'whoami', arguments: {} } : { name: 'list_inbox', arguments: { limit: 20 } };
      void send('mcp', 'POST', '/mcp', agentTokens[a]!, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: call }), 200, (text) => {
        if (text.includes('"error":{') || text.includes('"isError":true')) stats.rpcErrors++;
      });
    };

    // Open loop: each kind's due count grows with time; at most CONNECTIONS in flight.
    const rates: [Kind, number][] = [
      ['new', RATE],
      ['repeat', REPEAT_RATE],
      ['read', READ_RATE],
      ['mcp', MCP_RATE],
      ['grpc', GRPC_RATE],
    ];
    const issued = new Map<Kind, number>(rates.map(([k]) => [k, 0]));
    const dispatch = () => {
      const elapsed = nowS();
      if (elapsed >= DURATION_S) return;
      const now = performance.now();
      let progress = true;
      while (progress && inflight < CONNECTIONS) {
        progress = false;
        for (const [kind, rate] of rates) {
          if (inflight >= CONNECTIONS) break;
          if (issued.get(kind)! >= Math.floor(rate * elapsed)) continue;
          if (kind === 'mcp') {
            const a = agentBudget.take(now);
            if (a < 0) continue;
            sendMcp(a);
          } else if (kind === 'read') {
            sendRead();
          } else {
            const t = budget.take(now);
            if (t < 0) {
              stalls++;
              continue;
            }
            if (kind === 'new') sendNew(t);
            else if (kind === 'grpc') void sendGrpc(t);
            else sendRepeat(t);
          }
          issued.set(kind, issued.get(kind)! + 1);
          progress = true;
        }
      }
    };

    // Node RSS peaks and the balancer's view of each node, sampled during the load.
    const rssPeak = new Map<string, number>();
    const stateLog: { at_s: number; server: string; state: string }[] = [];
    const lastState = new Map<string, string>();
    timers.push(
      setInterval(() => {
        for (const [name, c] of nodes) rssPeak.set(name, Math.max(rssPeak.get(name) ?? 0, rssKb(c.proc.pid)));
      }, 500),
      setInterval(() => {
        serverStates(lb!.statsUrl).then(
          (st) => {
            for (const [server, state] of Object.entries(st)) {
              if (lastState.get(server) !== state) stateLog.push({ at_s: nowS(), server, state });
              lastState.set(server, state);
            }
          },
          () => undefined,
        );
      }, 100),
    );

    // What the database's busy backends wait for, once a second: lock waits show row contention
    // between the nodes' statements (a lock-bound run looks like a slow one from outside).
    const waits = { load: new Map<string, number>(), limitRounds: new Map<string, number>() };
    const waitSamples = { load: 0, limitRounds: 0 };
    let limitActive = 0;
    const waitClient = new pg.Client({ connectionString: db.url });
    await waitClient.connect();
    timers.push(
      setInterval(() => {
        waitClient
          .query(
            `select coalesce(wait_event_type || ':' || wait_event, 'cpu') as w, count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid() group by 1`,
          )
          .then(
            ({ rows }) => {
              const k = limitActive > 0 ? 'limitRounds' : 'load';
              waitSamples[k]++;
              for (const r of rows as { w: string; n: number }[]) waits[k].set(r.w, (waits[k].get(r.w) ?? 0) + r.n);
            },
            () => undefined,
          );
      }, 1000),
    );

    const serviceTicks = new TickBook(() => everyNodePid);
    const lbTicks = new TickBook(() => [lb!.proc.pid]);
    const rxTicks = new TickBook(() => [rx.proc.pid]);
    const cpuBefore = { snap: cpuSnap(undefined, dbName), svc: serviceTicks.sample(), lb: lbTicks.sample(), rx: rxTicks.sample() };
    log(
      `load: ${RATE} new + ${REPEAT_RATE} repeat + ${READ_RATE} read + ${MCP_RATE} MCP + ${GRPC_RATE} gRPC req/s for ${DURATION_S} s through ${lb.httpUrl}, ≤ ${CONNECTIONS} in flight; ${nPool} publishing tokens, ${nAgent} agent tokens`,
    );
    const ticker = setInterval(dispatch, 5);
    timers.push(ticker);

    // Progress line every 10 s.
    let lastTotal = 0;
    timers.push(
      setInterval(() => {
        const total = KINDS.reduce((n, k) => n + stats.total(k), 0);
        log(
          `t=${nowS().toFixed(0)} s: ${((total - lastTotal) / 10).toFixed(0)} req/s (new ${stats.total('new')}), in flight ${inflight}, 5xx/errors ${stats.failures.length}, unexpected ${stats.unexpected.length}, budget stalls ${stalls}`,
        );
        lastTotal = total;
      }, 10_000),
    );

    // Limit rounds: each token sends LIMIT_SENDS fresh events within a few seconds.
    const limitRound = async (round: number, tokens: string[]) => {
      const started = nowS();
      limitActive++;
      const pending: Promise<unknown>[] = [];
      const spreadMs = 5000;
      for (let i = 0; i < LIMIT_SENDS; i++) {
        tokens.forEach((auth, j) => {
          pending.push(
            send('limit', 'POST', '/api/v1/events', auth, eventBody(`${limitPrefix}${round}-${j}-${i}`, occurredAt), 202, undefined, `${round}/${j}`),
          );
        });
        await sleep(spreadMs / LIMIT_SENDS);
      }
      await Promise.all(pending);
      limitActive--;
      return { round, at_s: started, took_s: nowS() - started };
    };
    const rounds: Promise<{ round: number; at_s: number; took_s: number }>[] = [];
    const at = (fraction: number) => sleep(Math.max(0, fraction * DURATION_S * 1000 - (performance.now() - T0)));
    rounds.push(at(0.05).then(() => limitRound(1, limitTokens.slice(0, LIMIT_TOKENS))));

    // The kill: SIGKILL one node at KILL_AT of the duration, restart it at once with the same env.
    const victim = nodeDefs[Math.min(1, NODES - 1)]!;
    await at(KILL_AT);
    const killed = nodes.get(victim.name)!;
    const killAt = performance.now();
    killed.proc.kill('SIGKILL');
    await killed.exited;
    log(`t=${nowS().toFixed(1)} s: ${victim.name} (pid ${killed.proc.pid}) killed with SIGKILL; restarting it`);
    const restarted = startNode(victim);
    await waitFor200(`http://127.0.0.1:${victim.port}/api/v1/ready`, restarted, 90_000);
    const readyAt = performance.now();
    log(`t=${nowS().toFixed(1)} s: ${victim.name} ready again (pid ${restarted.proc.pid}), ${((readyAt - killAt) / 1000).toFixed(1)} s after the kill`);
    rounds.push(at(Math.max(0.65, KILL_AT + 0.25)).then(() => limitRound(2, limitTokens.slice(LIMIT_TOKENS))));

    const roundInfo = await Promise.all(rounds);
    await at(1);
    clearInterval(ticker);
    for (const deadline = Date.now() + 60_000; inflight > 0 && Date.now() < deadline; ) await sleep(20);
    const loadS = nowS();
    const cpuAfter = { snap: cpuSnap(undefined, dbName), svc: serviceTicks.sample(), lb: lbTicks.sample(), rx: rxTicks.sample() };
    log(`load ended after ${loadS.toFixed(1)} s (${inflight} still in flight)`);
    await pool.close();
    grpcSessions.abort();
    await waitClient.end();
    await limitPool.close();

    // The balancer's view: when it took the victim out and put it back.
    const vKey = `nodes/${victim.name}`;
    const killS = (killAt - T0) / 1000;
    // The victim may already be out at the kill (failed readiness checks while it was busy).
    const downS =
      stateLog.findLast(
        (e) =>
          e.server === vKey &&
          e.at_s <= killS &&
          e.state === 'DOWN' &&
          !stateLog.some((u) => u.server === vKey && u.state === 'UP' && u.at_s > e.at_s && u.at_s <= killS),
      )?.at_s ?? stateLog.find((e) => e.server === vKey && e.at_s >= killS && e.state === 'DOWN')?.at_s;
    const upS = stateLog.find((e) => e.server === vKey && e.at_s > killS && e.state === 'UP')?.at_s;
    // Every time the balancer took a node out (readiness failing), for the report.
    const retried = retriedAfterCommit.filter((x) => x.start < killAt && x.end >= killAt).length;
    const takenOut = stateLog.filter((e) => e.server.startsWith('nodes/') && e.state === 'DOWN').map((e) => ({ server: e.server, at_s: e.at_s }));
    const windowEndS = Math.max(upS ?? 0, (readyAt - T0) / 1000);

    // 4. Nudges: wait for the outbox to drain (a killed node's claimed nudges come back after their lease).
    const pgc = new pg.Client({ connectionString: db.url });
    await pgc.connect();
    const pending = async () =>
      (
        await pgc.query(
          `select (select count(*) from nudge_outbox)::int + (select count(*) from pgboss.job where name in ('nudges', 'nudges-parked') and state in ('created', 'retry', 'active'))::int as n`,
        )
      ).rows[0].n as number;
    const drainStart = Date.now();
    let left = await pending();
    while (left > 0 && Date.now() - drainStart < 240_000) {
      await sleep(250);
      left = await pending();
    }
    const drainS = (Date.now() - drainStart) / 1000;
    const rxCount = (await (await fetch(`${receiverUrl}/count`)).json()) as { hits: number; distinct: number };
    const rxDups = ((await (await fetch(`${receiverUrl}/duplicates`)).json()) as { duplicates: { key: string; at: number[] }[] }).duplicates;
    const killEpoch = epochAt(killAt);
    // A copy before the kill and another after it: the killed node had sent it but not settled it.
    const dupsAcrossKill = rxDups.filter((d) => d.at[0]! <= killEpoch && d.at.some((t) => t > killEpoch)).length;
    const deadNudges = Number((await pgc.query(`select count(*)::int as n from nudge_failures`)).rows[0].n);

    // 5. Lost events: every seq answered 2xx must have its delivery row.
    await pgc.query(`create temp table soak_accepted (seq int primary key)`);
    for (let i = 0; i < accepted.length; i += 100_000) await pgc.query(`insert into soak_accepted select unnest($1::int[])`, [accepted.slice(i, i + 100_000)]);
    const lost = (
      await pgc.query(`select count(*)::int as n from soak_accepted a where not exists (select 1 from deliveries d where d.event_id = $1 || a.seq)`, [prefix])
    ).rows[0].n as number;
    const storedDistinct = (await pgc.query(`select count(distinct event_id)::int as n from deliveries where event_id like $1`, [`${prefix}%`])).rows[0]
      .n as number;
    const lostAnswerStored = answerLost.length
      ? ((await pgc.query(`select count(*)::int as n from deliveries where event_id = any($1::text[])`, [answerLost.map((s) => `${prefix}${s}`)])).rows[0]
          .n as number)
      : 0;
    const limitStored = (
      await pgc.query(`select count(*)::int as n, count(distinct token_id)::int as tokens from deliveries where event_id like $1`, [`${limitPrefix}%`])
    ).rows[0] as { n: number; tokens: number };
    // Table and index bytes per row of the tables every event writes (docs/scaling.md sizes from these).
    const sizes = (
      await pgc.query(
        `select c.relname as t, pg_table_size(c.oid) as heap, pg_indexes_size(c.oid) as idx
           from pg_class c where c.relname in ('deliveries', 'notifications', 'audit_log', 'token_daily_counts', 'user_daily_counts') and c.relkind = 'r'`,
      )
    ).rows as { t: string; heap: string; idx: string }[];
    const tableBytes: Record<string, { rows: number; heap_bytes_per_row: number; index_bytes_per_row: number }> = {};
    for (const r of sizes) {
      const rows = Number((await pgc.query(`select count(*)::int as n from ${r.t}`)).rows[0].n);
      tableBytes[r.t] = {
        rows,
        heap_bytes_per_row: Math.round(Number(r.heap) / Math.max(1, rows)),
        index_bytes_per_row: Math.round(Number(r.idx) / Math.max(1, rows)),
      };
    }
    await pgc.end();

    // 6. Report.
    const classify = (f: Failure) =>
      f.start < killAt && f.end >= killAt ? 'inflight' : (f.start - T0) / 1000 <= windowEndS && (f.end - T0) / 1000 >= killS ? 'window' : 'outside';
    const failuresBy = { inflight: 0, window: 0, outside: 0 };
    for (const f of stats.failures) failuresBy[classify(f)]++;
    // A token with a request in flight at the kill may have that request counted twice: once by
    // the node that died, once by the node the balancer re-sent it to (59 stored, 11 refused).
    const perLimit = [...limitResults.entries()].map(([key, r]) => ({
      key,
      ...r,
      in_flight_at_kill: (limitSpans.get(key) ?? []).some(([a, b]) => a < killAt && b >= killAt),
    }));
    const limitsExact =
      perLimit.length === nLimit &&
      perLimit.every((r) => r.in_flight_at_kill || (r.accepted === LIMIT_PER_MINUTE && r.refused === LIMIT_SENDS - LIMIT_PER_MINUTE));
    const nudgeDups = rxCount.hits - rxCount.distinct;
    const totalRequests = KINDS.reduce((n, k) => n + stats.total(k), 0);
    const cpuMs = (ticks: number) => (ticks * TICK_MS) / Math.max(1, totalRequests);
    const snapD = (k: 'postgres' | 'redis' | 'loadgen' | 'busy' | 'total') => cpuAfter.snap[k] - cpuBefore.snap[k];
    const cpu = {
      service: cpuMs(cpuAfter.svc - cpuBefore.svc),
      haproxy: cpuMs(cpuAfter.lb - cpuBefore.lb),
      postgres: cpuMs(snapD('postgres')),
      redis: cpuMs(snapD('redis')),
      loadgen: cpuMs(snapD('loadgen')),
      receiver: cpuMs(cpuAfter.rx - cpuBefore.rx),
      other: 0,
      idle_share: snapD('total') > 0 ? 1 - snapD('busy') / snapD('total') : 0,
    };
    cpu.other = Math.max(0, cpuMs(snapD('busy')) - cpu.service - cpu.haproxy - cpu.postgres - cpu.redis - cpu.loadgen - cpu.receiver);

    const perSample = (k: keyof typeof waits) =>
      Object.fromEntries([...waits[k]].sort((a, b) => b[1] - a[1]).map(([w, n]) => [w, Number((n / Math.max(1, waitSamples[k])).toFixed(2))]));
    const kinds = Object.fromEntries(
      KINDS.map((k) => {
        const h = stats.latency.get(k)!;
        return [
          k,
          {
            requests: stats.total(k),
            per_s: stats.total(k) / loadS,
            statuses: Object.fromEntries(stats.statuses.get(k)!),
            p50_ms: h.quantile(0.5),
            p99_ms: h.quantile(0.99),
            max_ms: h.maxMs,
          },
        ];
      }),
    );
    const newPerS = accepted.length / loadS;
    const verdicts = {
      'no 5xx except the killed node in-flight requests': failuresBy.window + failuresBy.outside === 0,
      'no unexpected status (429 outside the limit rounds, 4xx, MCP error members)': stats.unexpected.length === 0 && stats.rpcErrors === 0,
      'no accepted event lost': lost === 0,
      'exact 60/min limits across nodes': limitsExact,
      'no duplicate nudges': nudgeDups === 0,
      'every expected nudge arrived': rxCount.distinct >= nudgesExpected && left === 0,
      [`new events >= 3000/s (SOAK_RATE ${RATE})`]: newPerS >= 3000,
    };
    const report = {
      run: {
        id: runId,
        started_at: new Date(performance.timeOrigin + T0).toISOString(),
        duration_s: DURATION_S,
        load_s: loadS,
        nodes: NODES,
        connections: CONNECTIONS,
        rates: Object.fromEntries(rates),
        balancer: haproxy.how,
        l7_retry: L7_RETRY,
        db_pool_max: Number(DB_POOL_MAX),
        tokens: { publishing: nPool, chat: nChat, agent: nAgent, limit: nLimit },
        budget_stalls: stalls,
      },
      kinds,
      by_node: Object.fromEntries(stats.byNode),
      kill: {
        node: victim.name,
        at_s: killS,
        balancer_down_at_s: downS ?? null,
        ready_again_at_s: (readyAt - T0) / 1000,
        balancer_up_at_s: upS ?? null,
        taken_out: takenOut,
        state_changes: stateLog,
      },
      failures: {
        total: stats.failures.length,
        grpc_refused_streams_retried: refusedStreamsRetried,
        retried_after_commit_at_kill: retried,
        retried_after_commit_other: retriedAfterCommit.length - retried,
        killed_node_in_flight: failuresBy.inflight,
        in_crash_window_not_in_flight: failuresBy.window,
        outside_crash_window: failuresBy.outside,
        samples: stats.failures.slice(0, 20).map((f) => ({ ...f, start_s: (f.start - T0) / 1000, end_s: (f.end - T0) / 1000 })),
      },
      unexpected: { total: stats.unexpected.length, rpc_errors: stats.rpcErrors, samples: stats.unexpected.slice(0, 20) },
      events: {
        accepted: accepted.length,
        accepted_per_s: newPerS,
        degraded,
        stored_distinct: storedDistinct,
        lost,
        answer_lost: answerLost.length,
        answer_lost_but_stored: lostAnswerStored,
      },
      limits: { rounds: roundInfo, per_token: perLimit, stored: limitStored, exact: limitsExact },
      nudges: {
        expected: nudgesExpected,
        received: rxCount.hits,
        distinct: rxCount.distinct,
        duplicates: nudgeDups,
        duplicates_across_kill: dupsAcrossKill,
        dead: deadNudges,
        outbox_left: left,
        drain_after_load_s: drainS,
      },
      // Average number of the database's active backends per sample, by what they waited for,
      // while a limit round ran (20 hot tokens) and otherwise.
      pg_waits: { load: perSample('load'), limitRounds: perSample('limitRounds') },
      table_bytes: tableBytes,
      rss_peak_mb: Object.fromEntries([...rssPeak].map(([k, v]) => [k, Math.round(v / 1024)])),
      cpu_ms_per_request: cpu,
      verdicts,
    };
    writeFileSync(OUT, JSON.stringify(report, null, 2));
    printReport(report);
    out(`JSON report: ${OUT}`);
    const failed = Object.entries(verdicts).filter(([name, ok]) => !ok && !name.startsWith('new events >='));
    if (failed.length > 0) {
      for (const c of nodes.values()) if (c.tail.length) out(`last log lines of ${c.name}:\n${c.tail.slice(-8).join('\n')}`);
    }
    return failed.length > 0 ? 1 : 0;
  } finally {
    await cleanup();
  }
}

interface KindFigures {
  requests: number;
  per_s: number;
  statuses: Record<string, number>;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}
/** The fields of the JSON report the printed summary reads. */
interface Report {
  run: { balancer: string; l7_retry: boolean };
  kinds: Record<string, KindFigures>;
  by_node: Record<string, number>;
  kill: {
    node: string;
    at_s: number;
    balancer_down_at_s: number | null;
    ready_again_at_s: number;
    balancer_up_at_s: number | null;
    taken_out: { server: string; at_s: number }[];
  };
  failures: {
    total: number;
    grpc_refused_streams_retried: number;
    retried_after_commit_at_kill: number;
    retried_after_commit_other: number;
    killed_node_in_flight: number;
    in_crash_window_not_in_flight: number;
    outside_crash_window: number;
  };
  unexpected: { total: number; rpc_errors: number };
  events: {
    accepted: number;
    accepted_per_s: number;
    degraded: number;
    stored_distinct: number;
    lost: number;
    answer_lost: number;
    answer_lost_but_stored: number;
  };
  limits: {
    rounds: unknown[];
    per_token: { accepted: number; refused: number; first_s: number; last_s: number; in_flight_at_kill: boolean }[];
    stored: { n: number };
    exact: boolean;
  };
  nudges: {
    expected: number;
    received: number;
    distinct: number;
    duplicates: number;
    duplicates_across_kill: number;
    dead: number;
    outbox_left: number;
    drain_after_load_s: number;
  };
  pg_waits: Record<'load' | 'limitRounds', Record<string, number>>;
  rss_peak_mb: Record<string, number>;
  cpu_ms_per_request: Record<'service' | 'haproxy' | 'postgres' | 'redis' | 'loadgen' | 'receiver' | 'other' | 'idle_share', number>;
  verdicts: Record<string, boolean>;
}

/** The table and summary lines of the JSON report (the report object as written). */
function printReport(r: Report): void {
  const rows = Object.entries(r.kinds).map(([kind, k]) => ({
    kind,
    requests: String(k.requests),
    'req/s': k.per_s.toFixed(0),
    'p50 ms': k.p50_ms.toFixed(1),
    'p99 ms': k.p99_ms.toFixed(1),
    'max ms': k.max_ms.toFixed(0),
    statuses: Object.entries(k.statuses)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', '),
  }));
  const cols = Object.keys(rows[0]!) as (keyof (typeof rows)[number])[];
  const width = (c: (typeof cols)[number]) => Math.max(c.length, ...rows.map((x) => x[c].length));
  const line = (cells: Record<string, string>) =>
    cols.map((c, i) => (i === 0 || c === 'statuses' ? cells[c]!.padEnd(width(c)) : cells[c]!.padStart(width(c)))).join(' | ');
  out('');
  out(line(Object.fromEntries(cols.map((c) => [c, c]))));
  out(cols.map((c) => '-'.repeat(width(c))).join('-|-'));
  for (const x of rows) out(line(x));
  out('');
  const k = r.kill;
  const f2 = (v: number | null) => (v === null ? '-' : v.toFixed(1));
  out(`balancer      : ${r.run.balancer}; L7 retries ${r.run.l7_retry ? 'on' : 'off'}; requests per node ${JSON.stringify(r.by_node)}`);
  out(
    `kill          : ${k.node} SIGKILLed at t=${f2(k.at_s)} s; balancer DOWN at ${f2(k.balancer_down_at_s)} s; ready again at ${f2(k.ready_again_at_s)} s; balancer UP at ${f2(k.balancer_up_at_s)} s`,
  );
  out(
    `taken out     : ${k.taken_out.length ? k.taken_out.map((e) => `${e.server.slice(6)} at ${e.at_s.toFixed(1)} s`).join(', ') : 'never'} (readiness checks failing, the kill included)`,
  );
  const fl = r.failures;
  out(
    `5xx / errors  : ${fl.total} (killed node's in-flight ${fl.killed_node_in_flight}; other in its crash window ${fl.in_crash_window_not_in_flight}; outside it ${fl.outside_crash_window}); gRPC streams refused by the balancer and sent again: ${fl.grpc_refused_streams_retried}`,
  );
  out(
    `re-sent       : ${fl.retried_after_commit_at_kill} requests in flight at the kill were committed by the dying node and re-sent by the balancer (answered 200 deduped); ${fl.retried_after_commit_other} such answers at other times`,
  );
  out(`unexpected    : ${r.unexpected.total} statuses, ${r.unexpected.rpc_errors} MCP error members`);
  const e = r.events;
  out(
    `events        : ${e.accepted} accepted (${e.accepted_per_s.toFixed(0)}/s, ${e.degraded} degraded), ${e.stored_distinct} distinct stored, ${e.lost} lost; ${e.answer_lost} without an answer (${e.answer_lost_but_stored} of them stored)`,
  );
  const l = r.limits;
  const clean = l.per_token.filter((t) => !t.in_flight_at_kill);
  const acc = clean.map((t) => t.accepted);
  const hit = l.per_token.filter((t) => t.in_flight_at_kill);
  const span = Math.max(0, ...l.per_token.map((t) => t.last_s - t.first_s));
  out(
    `limits        : ${l.per_token.length} tokens × ${LIMIT_SENDS} sends in ${l.rounds.length} rounds: accepted min ${Math.min(...acc)} max ${Math.max(...acc)} (60 expected) over the ${clean.length} tokens with nothing in flight at the kill, ${l.stored.n} rows stored, longest first send to last answer ${span.toFixed(1)} s -> ${l.exact ? 'exact' : 'NOT exact'}`,
  );
  if (hit.length)
    out(
      `                ${hit.length} tokens had a request in flight at the kill: accepted/refused ${hit.map((t) => `${t.accepted}/${t.refused}`).join(', ')}`,
    );
  const n = r.nudges;
  out(
    `nudges        : ${n.expected} expected, ${n.received} received, ${n.distinct} distinct, ${n.duplicates} duplicates (${n.duplicates_across_kill} across the kill), ${n.dead} dead, outbox ${n.outbox_left} left ${n.drain_after_load_s.toFixed(1)} s after the load`,
  );
  out(`pg waits      : ${JSON.stringify(r.pg_waits.load)} (active backends per sample, outside the limit rounds)`);
  out(`pg waits      : ${JSON.stringify(r.pg_waits.limitRounds)} (during the limit rounds)`);
  out(`RSS peak MB   : ${JSON.stringify(r.rss_peak_mb)}`);
  const c = r.cpu_ms_per_request;
  out(
    `cpu ms/request: service ${c.service.toFixed(3)} (all nodes), haproxy ${c.haproxy.toFixed(3)}, pg ${c.postgres.toFixed(3)}, redis ${c.redis.toFixed(3)}, loadgen ${c.loadgen.toFixed(3)}, receiver ${c.receiver.toFixed(3)}, other ${c.other.toFixed(3)}; idle ${(100 * c.idle_share).toFixed(0)} %`,
  );
  out('');
  for (const [name, ok] of Object.entries(r.verdicts)) out(`${ok ? 'PASS' : name.startsWith('new events >=') ? 'MISS' : 'FAIL'}  ${name}`);
}

function out(s: string): void {
  process.stdout.write(`${s}\n`);
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`[soak] broken run: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
