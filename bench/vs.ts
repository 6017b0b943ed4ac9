// `npm run bench:vs -- <git-rev | directory> [--scenario whoami|inbox|publish] [--rounds 6]
//                      [--requests 20000] [--connections 25]`
// This tree against another commit, both services under the same load AT THE SAME TIME: they share
// the host's drift, so their CPU time per call compares within about ±4 %. It reports CPU per call,
// not rates. How both trees are built, started and measured: bench/README.md, "bench:vs".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { PG_ADMIN_URL } from '../test/helpers/harness.js';
import { procTicks, TICK_MS } from './cpu.js';
import { ROOT, runBench, startBenchServer, type BenchServer } from './service.js';

const CALLS_PER_TOKEN = 55;
const WARMUP_ROUNDS = 2;

interface Scenario {
  path: string;
  /** What bench/vs-setup.ts makes: agent tokens of one user, or one personal token per user. */
  tokens: 'agent' | 'personal';
  notifications: number;
  /** The body of the side's k-th request (from 0). */
  body(k: number): string;
  /** Which of the side's `n` tokens the k-th request uses (each at most CALLS_PER_TOKEN times). */
  token(k: number, n: number): number;
  /** A 2xx that still failed (an MCP error member). */
  refused?(text: string): boolean;
}

const mcpCall = (name: string, args: Record<string, unknown>, notifications = 0): Scenario => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  return {
    path: '/mcp',
    tokens: 'agent',
    notifications,
    body: () => body,
    // As bench:mcp: each token serves its calls in a row, then the next.
    token: (k) => Math.floor(k / CALLS_PER_TOKEN),
    refused: (text) => text.includes('"error":{') || text.includes('"isError":true'),
  };
};

const SCENARIOS: Record<string, Scenario> = {
  whoami: mcpCall('whoami', {}),
  inbox: mcpCall('list_inbox', { limit: 50 }, 10_000),
  // As bench.ts's "new events": a fresh event_id every request, tokens taken round robin.
  publish: {
    path: '/api/v1/events',
    tokens: 'personal',
    notifications: 0,
    body: (k) =>
      JSON.stringify({
        spec_version: '2',
        event_id: `vs-${k}`,
        event_type: 'personal.build.failed',
        severity: 'warn',
        title: 'Build failed on main',
        summary: 'bench event',
        occurred_at: new Date().toISOString(),
      }),
    token: (k, n) => k % n,
  },
};

interface Side {
  label: string;
  root: string;
  server?: BenchServer;
  dbUrl?: string;
  tokens: string[];
  next: number;
  usPerCall: number[];
  callsPerS: number[];
}

/** Thrown, so main's finally stops the services, drops the databases and removes the worktree. */
function fail(message: string): never {
  throw new Error(`[bench:vs] ${message}`);
}

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): void {
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} failed in ${cwd} (exit ${r.status})`);
}

/** The other tree: a directory as given, or a temporary worktree of a git rev (removed at the end). */
function otherTree(spec: string): { root: string; label: string; remove?: () => void } {
  if (existsSync(spec) && statSync(spec).isDirectory()) return { root: path.resolve(spec), label: spec };
  const rev = spawnSync('git', ['rev-parse', '--short', spec], { cwd: ROOT, encoding: 'utf8' });
  if (rev.status !== 0) fail(`${spec} is neither a directory nor a git rev`);
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-vs-')), 'tree');
  run('git', ['worktree', 'add', '--detach', dir, spec], ROOT);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return {
    root: dir,
    label: rev.stdout.trim(),
    remove: () => {
      spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT });
      rmSync(path.dirname(dir), { recursive: true, force: true });
    },
  };
}

async function start(side: Side, tokens: number, scenario: Scenario): Promise<void> {
  if (!existsSync(path.join(side.root, 'scripts/build.mjs'))) fail(`${side.label} has no scripts/build.mjs (bench:vs runs dist/ as npm start does)`);
  run(process.execPath, ['scripts/build.mjs', '--if-stale', '--no-check'], side.root);
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-vs-setup-')), 'setup.json');
  run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/vs-setup.ts')], side.root, {
    VS_ROOT: side.root,
    VS_TOKENS: String(tokens),
    VS_KIND: scenario.tokens,
    VS_NOTIFICATIONS: String(scenario.notifications),
    VS_OUT: out,
  });
  const setup = JSON.parse(readFileSync(out, 'utf8')) as { url: string; tokens: string[] };
  rmSync(path.dirname(out), { recursive: true, force: true });
  side.dbUrl = setup.url;
  side.tokens = setup.tokens;
  side.server = await startBenchServer(setup.url, { WORKER: 'off' }, { root: side.root, dist: true });
}

/** `requests` calls at `connections` in flight; the service's CPU µs per call and the call rate. */
async function burst(side: Side, sc: Scenario, requests: number, connections: number): Promise<{ us: number; perS: number }> {
  const ticks = procTicks(side.server!.proc.pid!);
  const t0 = performance.now();
  let refused = 0;
  let sample = '';
  const r = await autocannon({
    url: `${side.server!.baseUrl}${sc.path}`,
    connections,
    amount: requests,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => {
          const k = side.next++;
          return {
            ...req,
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              authorization: `Bearer ${side.tokens[sc.token(k, side.tokens.length)]}`,
            },
            body: sc.body(k),
          };
        },
        onResponse: (status, text) => {
          if (status < 200 || status > 299 || sc.refused?.(text)) {
            refused++;
            sample = `${status} ${text.slice(0, 200)}`;
          }
        },
      },
    ],
  });
  if (refused > 0 || r.errors > 0 || r.timeouts > 0) fail(`${side.label}: ${refused} refused calls, ${r.errors + r.timeouts} failed requests (${sample})`);
  const us = ((procTicks(side.server!.proc.pid!) - ticks) * TICK_MS * 1000) / r.requests.total;
  return { us, perS: (r.requests.total * 1000) / (performance.now() - t0) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      scenario: { type: 'string', default: 'whoami' },
      rounds: { type: 'string', default: '6' },
      requests: { type: 'string', default: '20000' },
      connections: { type: 'string', default: '25' },
    },
  });
  if (positionals.length !== 1)
    fail('usage: npm run bench:vs -- <git-rev | directory> [--scenario whoami|inbox|publish] [--rounds N] [--requests N] [--connections N]');
  const scenario = Object.hasOwn(SCENARIOS, values.scenario!) ? SCENARIOS[values.scenario!] : undefined;
  if (!scenario) fail(`unknown scenario ${values.scenario} (${Object.keys(SCENARIOS).join(', ')})`);
  const rounds = Number(values.rounds);
  const requests = Number(values.requests);
  const connections = Number(values.connections);
  const tokens = Math.ceil(((rounds + WARMUP_ROUNDS) * requests) / CALLS_PER_TOKEN) + connections + 1;

  const other = otherTree(positionals[0]!);
  const sides: Side[] = [
    { label: other.label, root: other.root, tokens: [], next: 0, usPerCall: [], callsPerS: [] },
    { label: 'this tree', root: ROOT, tokens: [], next: 0, usPerCall: [], callsPerS: [] },
  ];
  try {
    for (const side of sides) await start(side, tokens, scenario);
    console.error(
      `[bench:vs] ${values.scenario}: ${WARMUP_ROUNDS} warm-up rounds, then ${rounds} of ${requests} calls per service, ${connections} connections each, at once`,
    );
    const rows: Record<string, string>[] = [];
    for (let round = -WARMUP_ROUNDS; round < rounds; round++) {
      // Which load starts first alternates by round (it is microseconds, but any edge it gives cancels out).
      const first = round % 2 === 0 ? 0 : 1;
      const started: Promise<{ us: number; perS: number }>[] = [];
      started[first] = burst(sides[first]!, scenario, requests, connections);
      started[1 - first] = burst(sides[1 - first]!, scenario, requests, connections);
      const [a, b] = await Promise.all(started);
      if (round < 0) continue;
      sides[0]!.usPerCall.push(a!.us);
      sides[1]!.usPerCall.push(b!.us);
      sides[0]!.callsPerS.push(a!.perS);
      sides[1]!.callsPerS.push(b!.perS);
      rows.push({
        round: String(round + 1),
        [`${other.label} µs/call`]: a!.us.toFixed(1),
        'this µs/call': b!.us.toFixed(1),
        'this / other': (b!.us / a!.us).toFixed(3),
      });
    }
    console.table(rows);
    const ratios = sides[1]!.usPerCall.map((b, i) => b / sides[0]!.usPerCall[i]!);
    console.log(
      `service CPU per ${values.scenario} call, this tree / ${other.label}: median ${median(ratios).toFixed(3)} ` +
        `(rounds ${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}); ` +
        `µs/call median ${median(sides[1]!.usPerCall).toFixed(1)} vs ${median(sides[0]!.usPerCall).toFixed(1)}; ` +
        `calls/s each (sharing the machine) ${Math.round(median(sides[1]!.callsPerS))} vs ${Math.round(median(sides[0]!.callsPerS))}`,
    );
    return 0;
  } finally {
    for (const side of sides) {
      await side.server?.stop();
      if (side.dbUrl) {
        const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
        await admin.connect();
        await admin.query(`drop database if exists ${side.dbUrl.replace(/^.*\//, '')} with (force)`);
        await admin.end();
      }
    }
    other.remove?.();
  }
}

runBench(main);
