// The fuzz suite's shared machinery: run counts and seeds (FUZZ_RUNS, FUZZ_SEED), token pools that
// stay under the per-token budgets, a row counter proving a rejected input stored nothing, the
// health check, and the figures `npm run fuzz` prints (inputs per surface, statuses, 5xx).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { expect } from 'vitest';
import { withToken } from '../helpers/agents.js';
import { event, http, newPersonalToken, newUser, publish, type Harness, type TestToken } from '../helpers/harness.js';
import { adminTools, type ToolsFixture } from '../helpers/tools.js';

/** Runs per target (route, tool, procedure): small in `npm test`, large in `npm run fuzz`. */
export const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 6));
/** One seed per file run; each target derives its own from it, so FUZZ_SEED replays a whole file. */
export const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
/** Long runs record every violation and fail once at the end instead of stopping at the first. */
export const COLLECT = process.env.FUZZ_COLLECT === '1';

export interface Violation {
  surface: string;
  target: string;
  status: string;
  reasons: string[];
  input: string;
}

export interface Stats {
  file: string;
  seed: number;
  runs: number;
  inputs: Record<string, number>;
  statuses: Record<string, Record<string, number>>;
  serverErrors: Record<string, number>;
  violations: Violation[];
  startedAt: number;
  durationMs?: number;
}

export function newStats(file: string): Stats {
  return { file, seed: SEED, runs: RUNS, inputs: {}, statuses: {}, serverErrors: {}, violations: [], startedAt: Date.now() };
}

export const short = (s: string, n = 400): string => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

/**
 * Records one answer. A 5xx (or the surface's internal code) counts as a server error; any
 * reason is a violation: thrown at once (fast-check shrinks it and prints the seed) unless COLLECT.
 */
export function record(stats: Stats, surface: string, target: string, status: string, reasons: string[], input: () => string, serverError: boolean): void {
  stats.inputs[surface] = (stats.inputs[surface] ?? 0) + 1;
  const byStatus = (stats.statuses[surface] ??= {});
  byStatus[status] = (byStatus[status] ?? 0) + 1;
  if (serverError) stats.serverErrors[surface] = (stats.serverErrors[surface] ?? 0) + 1;
  if (reasons.length === 0) return;
  const v: Violation = { surface, target, status, reasons, input: short(input(), 4000) };
  if (COLLECT) {
    // At most 500 kept per surface, so one noisy surface does not hide another's.
    if (stats.violations.filter((x) => x.surface === surface).length < 500) stats.violations.push(v);
    return;
  }
  throw new Error(`${surface} ${target} -> ${status}: ${reasons.join('; ')}\ninput: ${v.input}`);
}

/** fc.assert with the file seed (offset per target) and the run count. */
export async function check<T>(stats: Stats, index: number, arb: fc.Arbitrary<T>, body: (v: T) => Promise<void>, runs = RUNS): Promise<void> {
  await fc.assert(fc.asyncProperty(arb, body), { numRuns: runs, seed: stats.seed + index, endOnFailure: COLLECT });
}

/** Prints the figures and, for `npm run fuzz`, writes them where the driver collects them. */
export function finish(stats: Stats): void {
  stats.durationMs = Date.now() - stats.startedAt;
  const total = Object.values(stats.inputs).reduce((a, b) => a + b, 0);
  const lines = [
    `[fuzz] ${stats.file}: ${total} inputs in ${(stats.durationMs / 1000).toFixed(1)} s, seed ${stats.seed} (replay: FUZZ_SEED=${stats.seed}), runs per target ${stats.runs}`,
  ];
  for (const [s, n] of Object.entries(stats.inputs))
    lines.push(`  ${s}: ${n} inputs, 5xx ${stats.serverErrors[s] ?? 0}, statuses ${JSON.stringify(stats.statuses[s])}`);
  for (const v of stats.violations.slice(0, 20))
    lines.push(`  VIOLATION ${v.surface} ${v.target} -> ${v.status}: ${v.reasons.join('; ')} | ${short(v.input, 200)}`);
  console.log(lines.join('\n'));
  const dir = process.env.FUZZ_REPORT_DIR;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${stats.file.replace(/[^a-z0-9.-]/gi, '_')}.json`), JSON.stringify(stats, null, 1));
  }
}

// ---------------------------------------------------------------------------------------------
// Callers. Every budget is per token (60 events/min, 60 agent calls/min and 5000/day, circuit
// breaker over failure rates, daily notification limits): a token serves USES requests, then a
// fresh one (of a fresh user) takes over, and the clock moves a minute every 50 requests.

const USES = 40;

class Pool<T> {
  private current?: T;
  private used = USES;
  constructor(private readonly make: () => Promise<T>) {}
  async get(): Promise<T> {
    if (this.used >= USES || this.current === undefined) {
      this.current = await this.make();
      this.used = 0;
    }
    this.used++;
    return this.current;
  }
}

export interface Personal extends TestToken {
  /** A delivery this token sent (for read-back, resolve and supplement paths). */
  deliveryId: string;
}
export interface Agent {
  token: string;
  userId: string;
  email: string;
}

export type Kind = 'personal' | 'tools' | 'agentAdmin' | 'agentMember' | 'none' | 'garbage';
export const KINDS: Kind[] = ['personal', 'tools', 'agentAdmin', 'agentMember', 'none', 'garbage'];

export interface Callers {
  personal: () => Promise<Personal>;
  tools: () => Promise<ToolsFixture>;
  agentAdmin: () => Promise<Agent>;
  agentMember: () => Promise<Agent>;
  /** The bearer value for a caller kind (undefined: no Authorization header). */
  token(kind: Kind): Promise<string | undefined>;
  /** Advances the clock a minute every 50 requests (called once per request). */
  tick(): void;
}

const GARBAGE = ['svc-in-pers-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'svc-tools-nope', 'sk-svc-\u00ff', 'x', '', 'Bearer', `svc-in-pers-${'a'.repeat(5000)}`];

export function callers(h: () => Harness): Callers {
  const personal = new Pool<Personal>(async () => {
    const t = await newPersonalToken(h());
    const r = await publish(h(), t.token, event(h()));
    if (r.status !== 202) throw new Error(`fixture publish: ${r.status} ${r.text}`);
    return { ...t, deliveryId: r.body.deliveryId };
  });
  const tools = new Pool<ToolsFixture>(() => adminTools(h()));
  const agentOf = (role: string) => new Pool<Agent>(async () => withToken(h(), await newUser(h(), role)));
  const agentAdmin = agentOf('admin');
  const agentMember = agentOf('member');
  let n = 0;
  let g = 0;
  return {
    personal: () => personal.get(),
    tools: () => tools.get(),
    agentAdmin: () => agentAdmin.get(),
    agentMember: () => agentMember.get(),
    async token(kind) {
      switch (kind) {
        case 'personal':
          return (await personal.get()).token;
        case 'tools':
          return (await tools.get()).token;
        case 'agentAdmin':
          return (await agentAdmin.get()).token;
        case 'agentMember':
          return (await agentMember.get()).token;
        case 'none':
          return undefined;
        case 'garbage':
          return GARBAGE[g++ % GARBAGE.length];
      }
    },
    tick() {
      if (++n % 50 === 0) h().clock.advance(61_000);
    },
  };
}

/** A caller kind: mostly the route's own, sometimes any other (the auth paths get fuzzed too). */
export const kindFor = (own: Kind): fc.Arbitrary<Kind> =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(own) }, { weight: 1, arbitrary: fc.constantFrom(...KINDS) });

// ---------------------------------------------------------------------------------------------
// "A rejected input stores nothing": rows of every table a request could write user content or
// grants into, counted right before and after the request (audit rows are written on rejection
// by design; notifications and outboxes are also written by background jobs, so not counted).

const COUNTED = [
  'deliveries',
  'delivery_supplements',
  'moderation_queue',
  'inbound_tokens',
  'agent_tokens',
  'users',
  'integrators',
  'catalog_items',
  'catalog_requests',
  'access_assets',
  'tasks',
  'task_comments',
  'task_cc',
  'task_reviewers',
  'doc_pages',
  'doc_page_revisions',
  'doc_page_tags',
  'doc_spaces',
  'feedback',
  'feedback_comments',
  'project_repositories',
  'projects',
  'project_members',
  'daily_updates',
  'push_subscriptions',
  'connect_sessions',
];

export interface RowCounter {
  snapshot(): Promise<Record<string, number>>;
  /** Counts that differ between two snapshots, except a growth up to `allowed[name]` rows. */
  diff(a: Record<string, number>, b: Record<string, number>, allowed?: Record<string, number>): string[];
  close(): Promise<void>;
}

/** Every COUNTED table, plus `extra` counts a surface's own file adds (name -> a `select count(*)` query). */
export async function rowCounter(h: Harness, extra: Record<string, string> = {}): Promise<RowCounter> {
  const c = new pg.Client({ connectionString: h.databaseUrl });
  await c.connect();
  const counts: Array<[string, string]> = [...COUNTED.map((t): [string, string] => [t, `select count(*) from "${t}"`]), ...Object.entries(extra)];
  const q = `select ${counts.map(([name, sql]) => `(${sql})::int as "${name}"`).join(', ')}`;
  return {
    async snapshot() {
      return (await c.query(q)).rows[0];
    },
    diff: (a, b, allowed = {}) =>
      counts
        .map(([name]) => name)
        .filter((t) => a[t] !== b[t] && !(b[t]! > a[t]! && b[t]! - a[t]! <= (allowed[t] ?? 0)))
        .map((t) => `${t} ${a[t]} -> ${b[t]}`),
    close: () => c.end(),
  };
}

/** The server is healthy after the run: health 200 and one valid publish accepted. */
export async function expectHealthy(h: Harness): Promise<void> {
  h.clock.advance(61_000);
  const health = await http(h, 'GET', '/api/v1/health');
  expect(health.status, health.text).toBe(200);
  const t = await newPersonalToken(h);
  const r = await publish(h, t.token, event(h));
  expect(r.status, r.text).toBe(202);
}

/** Every violation of a COLLECT run (from index `from`: one test's own), as one failure at the end. */
export function expectNoViolations(stats: Stats, from = 0): void {
  expect(stats.violations.slice(from).map((v) => `${v.surface} ${v.target} -> ${v.status}: ${v.reasons.join('; ')} | ${short(v.input, 200)}`)).toEqual([]);
}
