// `npm run bench:scale`: how the service's calls slow down as the tables grow (issue 30, "scale
// figures"). The same calls are measured twice through the real HTTP API, by CONCURRENCY callers
// for SECONDS each: first on an empty database, then after SQL filled SCALE_ROWS deliveries (each
// with its inbox row and its audit row, over the last six months, for SCALE_USERS users), with
// fresh users again so that their inboxes are as small as before. A heavy user is measured in both
// rounds: a full page of its own events at first, then SCALE_HEAVY_ROWS more of the filled rows.
// Prints one table: metric, empty, filled, ratio; then the fill's time and the tables' sizes. What
// each step does: bench/README.md, section bench:scale. A measurement, never a test.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Pool } from 'undici';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { searchDocSql, searchLexemes, userKeySql } from '../src/domain/inbox/search-doc.rules.js';
import { addMonths, createPartitionSql, monthStart } from '../src/infra/db/partitions.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import { createDatabase } from '../test/helpers/harness.js';
import { type BenchServer, runBench, startBenchServer, mapLimit } from './service.js';

const num = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt);
const ROWS = num('SCALE_ROWS', 10_000_000);
const USERS = num('SCALE_USERS', 2_000);
/** The heavy user's share of the fill; at most a quarter of it (a small SCALE_ROWS keeps most rows for the others). */
const HEAVY_ROWS = Math.min(num('SCALE_HEAVY_ROWS', 50_000), Math.floor(ROWS / 4));
const CHUNK = num('SCALE_CHUNK', 500_000);
const SECONDS = num('SCALE_SECONDS', 10);
const CONCURRENCY = num('SCALE_CONCURRENCY', 20);
/** Untimed seconds of every call before the measured ones (JIT, pooled connections, prepared statements). */
const WARMUP_S = num('SCALE_WARMUP_S', 2);
/** Calls per second each scenario's tokens are sized for: a faster service uses them up and the scenario ends early (marked `*`). */
const MAX_RPS = num('SCALE_MAX_RPS', 3_000);
const KEEP = process.env.SCALE_KEEP === '1';
/** The schema after the post-deploy migrations (deliveries partitioned by month), as a finished rollout leaves it; SCALE_POST_DEPLOY=0: before them. */
const POST_DEPLOY = process.env.SCALE_POST_DEPLOY !== '0';
const SERVICE_ENV = { WORKER: 'off', MIGRATE_POST_DEPLOY: POST_DEPLOY ? 'on' : 'off' };
const DAYS = 180;

// The rate budgets (src/domain/rate-budgets.rules.ts), never reached: 60 publishes and 60 agent
// calls per token and minute, 600 other calls of an inbound token (read-back and event types share them).
const PUBLISH_PER_TOKEN = 55;
const AGENT_PER_TOKEN = 55;
const REQUESTS_PER_TOKEN = 270;

const log = (msg: string) => process.stdout.write(`${new Date().toISOString()} ${msg}\n`);

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

interface Call {
  method: 'GET' | 'POST';
  path: string;
  auth: string;
  body?: string;
  headers?: Record<string, string>;
}

interface Outcome {
  n: number;
  rate: number;
  p50: number;
  p99: number;
  /** Answers other than the expected status, transport errors, JSON-RPC error members. */
  bad: number;
  badSample: string;
  /** Ended on its token budget before SECONDS were over. */
  capped: boolean;
}

/**
 * A closed loop of CONCURRENCY callers for `seconds` or until `budget` calls were made: call i is
 * `make(i)`; an answer is good when its status is `expect` and `accept` (if given) takes its body.
 * Latencies are timed here (autocannon's histogram keeps whole milliseconds: too coarse below 5 ms).
 */
async function drive(
  http: Pool,
  seconds: number,
  budget: number,
  expect: number,
  make: (i: number) => Call,
  accept?: (body: string, i: number) => boolean,
): Promise<Outcome> {
  const ms: number[] = [];
  let next = 0;
  let bad = 0;
  let badSample = '';
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < budget && performance.now() < end) {
        const i = next++;
        const c = make(i);
        const started = performance.now();
        try {
          const r = await http.request({
            method: c.method,
            path: c.path,
            headers: { authorization: `Bearer ${c.auth}`, ...(c.body ? { 'content-type': 'application/json' } : {}), ...c.headers },
            body: c.body,
          });
          const text = await r.body.text();
          ms.push(performance.now() - started);
          if (r.statusCode !== expect || (accept && !accept(text, i))) {
            bad++;
            badSample ||= `${r.statusCode} ${text.slice(0, 300)}`;
          }
        } catch (err) {
          bad++;
          badSample ||= String(err);
        }
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  ms.sort((a, b) => a - b);
  return { n: ms.length, rate: ms.length / elapsed, p50: pct(ms, 50), p99: pct(ms, 99), bad, badSample, capped: next >= budget };
}

interface Person {
  email: string;
  userId: string;
  tokenId: string;
  token: string;
}

type Deps = Awaited<ReturnType<typeof createDeps>>;

async function op<T>(deps: Deps, name: string, input: Record<string, unknown>): Promise<T> {
  const r = await runOperator(deps, name, input);
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
  return r.output as T;
}

/** `n` users with a personal token each, made 16 at a time through the operator operations. */
async function people(deps: Deps, tag: string, n: number): Promise<Person[]> {
  return mapLimit(Array.from({ length: n }), 16, async (_, i) => {
    const email = `${tag}-${i}@example.test`;
    const u = await op<{ userId: string }>(deps, 'users.create', { email, name: `Scale ${tag} ${i}` });
    const t = await op<{ tokenId: string; token: string }>(deps, 'tokens.create_personal', { email, label: 'scale', daily_limit: 1000 });
    return { email, userId: u.userId, ...t };
  });
}

const agentTokens = (deps: Deps, emails: string[]) =>
  mapLimit(emails, 16, async (email) => (await op<{ token: string }>(deps, 'agent_tokens.create', { email, scopes: ['read:inbox'] })).token);

/** The callers of one round of scenarios, sized for `seconds` at MAX_RPS. */
interface Cast {
  /** Publish new events; then read their deliveries back, list their inboxes and their event types. */
  publishers: Person[];
  /** One agent token per publisher, of the same user. */
  agents: string[];
  /** Each publishes one event, then only repeats it. */
  repeaters: Person[];
}

const tokensFor = (seconds: number, perToken: number) => Math.ceil((MAX_RPS * seconds) / perToken) + CONCURRENCY;

async function cast(deps: Deps, tag: string, seconds: number): Promise<Cast> {
  const publishers = await people(deps, `${tag}-pub`, tokensFor(seconds, PUBLISH_PER_TOKEN));
  const repeaters = await people(deps, `${tag}-rep`, tokensFor(seconds, PUBLISH_PER_TOKEN - 1));
  const agents = await agentTokens(
    deps,
    publishers.map((p) => p.email),
  );
  return { publishers, agents, repeaters };
}

const eventBody = (eventId: string) =>
  JSON.stringify({
    spec_version: '2',
    event_id: eventId,
    event_type: 'personal.ci.build',
    severity: 'warn',
    title: 'Build 4312 failed on main of checkout-53',
    summary: 'Step integration-tests failed after 12 minutes; 3 of 412 tests red on runner ci-7',
    labels: { host: 'db-17', env: 'production' },
    occurred_at: new Date(Date.now() - 60_000).toISOString(),
  });

const MCP_LIST_INBOX = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_inbox', arguments: { limit: 50 } } });
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
/** A refused call or a tool error is an error member inside a 200. */
const mcpOk = (body: string) => !body.includes('"error":{') && !body.includes('"isError":true');

type Results = Map<string, Outcome>;

/** The five calls (a)-(e) for `c`'s callers: publish, dedup, read-back, list_inbox, event types. */
async function scenarios(http: Pool, c: Cast, seconds: number, runId: string): Promise<Results> {
  const out: Results = new Map();
  const np = c.publishers.length;
  const ids: string[][] = c.publishers.map(() => []);
  out.set(
    'publish (new event_id)',
    await drive(
      http,
      seconds,
      np * PUBLISH_PER_TOKEN,
      202,
      (i) => ({ method: 'POST', path: '/api/v1/events', auth: c.publishers[i % np]!.token, body: eventBody(`scale-${runId}-${i}`) }),
      (body, i) => {
        const id = (JSON.parse(body) as { deliveryId?: string }).deliveryId;
        if (id) ids[i % np]!.push(id);
        return id !== undefined;
      },
    ),
  );

  const nr = c.repeaters.length;
  await mapLimit(c.repeaters, CONCURRENCY, async (p, i) => {
    const r = await http.request({
      method: 'POST',
      path: '/api/v1/events',
      headers: { authorization: `Bearer ${p.token}`, 'content-type': 'application/json' },
      body: eventBody(`scale-${runId}-rep-${i}`),
    });
    await r.body.text();
    if (r.statusCode !== 202) throw new Error(`pre-publish of a repeated event: ${r.statusCode}`);
  });
  out.set(
    'dedup (repeated event_id)',
    await drive(http, seconds, nr * (PUBLISH_PER_TOKEN - 1), 200, (i) => ({
      method: 'POST',
      path: '/api/v1/events',
      auth: c.repeaters[i % nr]!.token,
      body: eventBody(`scale-${runId}-rep-${i % nr}`),
    })),
  );

  // Only the publishers that got a delivery: the others have nothing to read back and an empty inbox.
  const sent = c.publishers.flatMap((p, i) => (ids[i]!.length > 0 ? [{ token: p.token, agent: c.agents[i]!, ids: ids[i]! }] : []));
  const ns = sent.length;
  out.set(
    'read-back GET /api/v1/events/{id}',
    await drive(http, seconds, ns * REQUESTS_PER_TOKEN, 200, (i) => {
      const s = sent[i % ns]!;
      return { method: 'GET', path: `/api/v1/events/${s.ids[Math.floor(i / ns) % s.ids.length]}`, auth: s.token };
    }),
  );
  out.set(
    'MCP list_inbox (limit 50)',
    await drive(
      http,
      seconds,
      ns * AGENT_PER_TOKEN,
      200,
      (i) => ({ method: 'POST', path: '/mcp', auth: sent[i % ns]!.agent, body: MCP_LIST_INBOX, headers: MCP_HEADERS }),
      mcpOk,
    ),
  );
  out.set(
    'GET /api/v1/event-types',
    await drive(http, seconds, ns * REQUESTS_PER_TOKEN, 200, (i) => ({ method: 'GET', path: '/api/v1/event-types', auth: sent[i % ns]!.token })),
  );
  return out;
}

/** Fresh callers for the heavy user: agent tokens, and more personal tokens (its event types count every token of its owner). */
async function heavyCallers(deps: Deps, heavy: Person): Promise<{ agents: string[]; tokens: string[] }> {
  return {
    agents: await agentTokens(
      deps,
      Array.from({ length: tokensFor(SECONDS, AGENT_PER_TOKEN) }, () => heavy.email),
    ),
    tokens: await mapLimit(
      Array.from({ length: tokensFor(SECONDS, REQUESTS_PER_TOKEN) }),
      16,
      async () => (await op<{ token: string }>(deps, 'tokens.create_personal', { email: heavy.email, label: 'scale', daily_limit: 1000 })).token,
    ),
  };
}

/** The heavy user's calls: its agent tokens list its inbox, its extra personal tokens read its event types. */
async function heavyScenarios(http: Pool, agents: string[], tokens: string[], seconds: number): Promise<Results> {
  const out: Results = new Map();
  out.set(
    'MCP list_inbox (limit 50)',
    await drive(
      http,
      seconds,
      agents.length * AGENT_PER_TOKEN,
      200,
      (i) => ({ method: 'POST', path: '/mcp', auth: agents[i % agents.length]!, body: MCP_LIST_INBOX, headers: MCP_HEADERS }),
      mcpOk,
    ),
  );
  out.set(
    'GET /api/v1/event-types',
    await drive(http, seconds, tokens.length * REQUESTS_PER_TOKEN, 200, (i) => ({
      method: 'GET',
      path: '/api/v1/event-types',
      auth: tokens[i % tokens.length]!,
    })),
  );
  return out;
}

// Eight kinds of events a person's tools send: titles of about 40 characters, summaries of about
// 80, `%s` filled from the row number so that the words (and the search index's lexemes) vary.
const KINDS = `(values
  (0, 'personal.ci.build', 'critical', 'Build %s failed on main of checkout-%s', 'Step integration-tests failed after %s minutes; 3 of 412 tests red on runner ci-%s', false),
  (1, 'personal.ci.build', 'success', 'Build %s passed on main of checkout-%s', 'All 412 tests green in %s minutes on runner ci-%s; artifacts uploaded to the registry', false),
  (2, 'personal.ci.deploy', 'info', 'Deploy %s of billing-api finished on p-%s', 'Rolled out to production in %s minutes across 6 pods; canary error rate %s per mille', false),
  (3, 'personal.mon.disk', 'warn', 'Disk usage %s percent on volume data-%s', 'Volume /data grows 2 GB a day and will be full in %s days at this rate (shard %s)', true),
  (4, 'personal.mon.cpu', 'warn', 'CPU load above %s for 10 minutes on web-%s', 'Load average stayed above the threshold for %s samples in a row on node pool %s', true),
  (5, 'personal.approvals.leave', 'info', 'Leave request %s approved for team %s', 'Your request for next week was approved by your manager; %s days remain this year, %s', false),
  (6, 'personal.misc.digest', 'info', 'Daily digest %s: updates in project %s', 'Twelve updates in your projects since yesterday, %s of them mention you directly; %s', false),
  (7, 'personal.mon.backup', 'info', 'Backup %s of the billing database on %s', 'Nightly backup finished in %s minutes; 48 GB written to the offsite bucket vault-%s', false)
) as kinds (k, event_type, severity, title, summary, alert)`;

/**
 * Rows g of [$1, $2] of $3, in time order over the last DAYS days: every $4-th row to the heavy
 * user (fill_people.i = 0), the others round robin over the other $5 - 1 users. One statement per
 * chunk, as the publish statement writes them: the delivery, its inbox row with its search document
 * and its audit row. The document is searchDocSql of the row's word lexemes, which are those
 * search-doc.rules.ts searchLexemes makes of its title, summary and label values (ASCII: lower
 * case, split on what is not a letter or digit, behind the owner's key): the template's words,
 * made once per user and kind (`pw`), and the words `%s` and the labels put in. Made by a regular
 * expression per row, they cost as much as the rest of the row; checkFill compares them with searchLexemes.
 */
const FILL_SQL = `
with pw as (
  select p.*, kinds.*, array(
    select distinct p.ukey || ':' || w from regexp_split_to_table(lower(replace(kinds.title || ' ' || kinds.summary, '%s', ' ')), '[^a-z0-9]+') w
     where w <> '') as words
  from fill_people p cross join ${KINDS}
), x as (
  select g, case when g % $4::int = 0 then 0 else 1 + g % ($5::int - 1) end as i, hashint4(g) & 7 as k,
    (1000 + g % 9000)::text as t1, (g % 97)::text as t2, (2 + g % 40)::text as s1, (g % 61)::text as s2, (g % 200)::text as host,
    case when g % 4 = 0 then 'staging' else 'production' end as env,
    now() - interval '${DAYS} days' + ((g - 0.5) / $3::float8) * interval '${DAYS} days' as at
  from generate_series($1::int, $2::int) g
), src as (
  select gen_random_uuid() as id, x.g, x.at, pw.user_id, pw.token_id, pw.integrator_id, pw.event_type, pw.severity,
    format(pw.title, x.t1, x.t2) as title, format(pw.summary, x.s1, x.s2) as summary, 'https://ci.example.test/runs/' || x.g as url,
    case when pw.alert then (case when x.g % 3 = 0 then 'firing' else 'resolved' end) end as status,
    jsonb_build_object('host', 'db-' || x.host, 'env', x.env) as labels,
    pw.words || array[pw.ukey || ':' || x.t1, pw.ukey || ':' || x.t2, pw.ukey || ':' || x.s1, pw.ukey || ':' || x.s2,
      pw.ukey || ':db', pw.ukey || ':' || x.host, pw.ukey || ':' || x.env] as words
  from x join pw on pw.i = x.i and pw.k = x.k
), d as (
  insert into deliveries (id, token_id, integrator_id, recipient_user_id, event_id, event_type, severity, title, summary,
    external_url, external_status, external_status_at, labels, occurred_at, created_at, last_event_at, fire_count)
  select s.id, s.token_id, s.integrator_id, s.user_id, 'fill-' || s.g, s.event_type, s.severity, s.title, s.summary, s.url,
    s.status, case when s.status is not null then s.at end, s.labels, s.at - interval '20 seconds', s.at, s.at, 1
  from src s
), k as (
  insert into delivery_keys (token_id, event_id, delivery_id, created_at) select s.token_id, 'fill-' || s.g, s.id, s.at from src s
), n as (
  insert into notifications (id, user_id, type, title, summary, delivery_id, target_url, created_at, updated_at, read_at, search_doc)
  select gen_random_uuid(), s.user_id, 'system', s.title, s.summary, s.id, s.url, s.at, s.at,
    case when s.at < now() - interval '2 days' then s.at + interval '10 minutes' end,
    ${searchDocSql('s.words', 's.user_id', 's.severity', 's.event_type', 's.token_id')}
  from src s
), a as (
  insert into audit_log (id, action, source, actor_user_id, token_id, target_type, target_id, request_id, summary, created_at)
  select gen_random_uuid(), 'inbound.event.received', 'api', s.user_id, s.token_id, 'delivery', s.id::text, 'req_' || left(md5(s.id::text), 22),
    jsonb_build_object('event_type', s.event_type, 'event_id', 'fill-' || s.g, 'severity', s.severity, 'fire_count', 1, 'degraded', false),
    s.at
  from src s
)
select count(*)::int as n from src`;

/** Fills the database by SQL for `heavy` and USERS - 1 new users; returns the fill's seconds. */
async function fill(admin: pg.Client, deps: Deps, runId: string, heavy: Person): Promise<number> {
  let t = performance.now();
  const fillers = [heavy, ...(await people(deps, `scale-${runId}-fill`, USERS - 1))];
  const integrator = (await admin.query('select integrator_id from inbound_tokens where id = $1', [fillers[0]!.tokenId])).rows[0].integrator_id as string;
  log(`fill: ${USERS} users with a personal token in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  await admin.query(
    'create temp table fill_people (i int primary key, user_id uuid not null, token_id uuid not null, integrator_id uuid not null, ukey text not null)',
  );
  await admin.query(`insert into fill_people select i - 1, u, t, $3, ${userKeySql('u')} from unnest($1::uuid[], $2::uuid[]) with ordinality x(u, t, i)`, [
    fillers.map((p) => p.userId),
    fillers.map((p) => p.tokenId),
    integrator,
  ]);
  // The partitioned tables' partitions exist from the current month on (ensurePartitionsAhead): the past months' are made here.
  const now = new Date();
  const partitioned = (
    await admin.query(`select relname from pg_class where relkind = 'p' and relname in ('audit_log', 'deliveries', 'notifications', 'delivery_supplements')`)
  ).rows.map((r: { relname: string }) => r.relname);
  for (let m = monthStart(new Date(now.getTime() - DAYS * 86_400_000)); m < monthStart(now); m = addMonths(m, 1)) {
    for (const table of partitioned) await admin.query(createPartitionSql(table, table, m));
  }
  // The fill writes each delivery's dedup key itself (the key trigger, before the post-deploy migration, skips such a session).
  await admin.query(`set fluxdesk.writes_delivery_keys = on`);
  const heavyEvery = Math.max(2, Math.round(ROWS / Math.max(1, HEAVY_ROWS)));
  // The inbox search index (GIN) is built after the fill instead of growing with it: row by row,
  // through its pending list, it took most of the fill's time (a build is about 2.5 times faster).
  // A partitioned table's definition reads `ON ONLY`, which would build the parent's index alone (invalid, no partition's).
  const searchIndex = ((await admin.query(`select pg_get_indexdef('notifications_search_index'::regclass) as def`)).rows[0].def as string).replace(
    ' ON ONLY ',
    ' ON ',
  );
  await admin.query('drop index notifications_search_index');
  t = performance.now();
  for (let from = 1; from <= ROWS; from += CHUNK) {
    const to = Math.min(ROWS, from + CHUNK - 1);
    const c0 = performance.now();
    await admin.query(FILL_SQL, [from, to, ROWS, heavyEvery, USERS]);
    const s = (performance.now() - t) / 1000;
    log(
      `fill: ${to.toLocaleString('en')} / ${ROWS.toLocaleString('en')} rows, chunk ${((performance.now() - c0) / 1000).toFixed(1)} s, ${Math.round(to / s).toLocaleString('en')} rows/s so far`,
    );
  }
  const b0 = performance.now();
  await admin.query(`set maintenance_work_mem = '1GB'`);
  await admin.query(searchIndex);
  log(`fill: search index built in ${((performance.now() - b0) / 1000).toFixed(1)} s`);
  const seconds = (performance.now() - t) / 1000;
  const v0 = performance.now();
  for (const table of ['deliveries', 'notifications', 'audit_log', 'inbox_counters']) await admin.query(`vacuum analyze ${table}`);
  log(`vacuum analyze: ${((performance.now() - v0) / 1000).toFixed(1)} s`);
  return seconds;
}

/** The fill's own checks: the heavy user's counters against its rows, and its search documents against the service's lexemes. */
async function checkFill(admin: pg.Client, heavy: Person): Promise<void> {
  const counts = (
    await admin.query(
      `select (select count(*) from notifications where user_id = $1)::int as rows,
              (select coalesce(sum(total), 0) from inbox_counters where user_id = $1)::int as counted`,
      [heavy.userId],
    )
  ).rows[0] as { rows: number; counted: number };
  const sample = (
    await admin.query(
      `select n.title, n.summary, d.labels, array(select l from unnest(tsvector_to_array(n.search_doc)) l where l not like '%!%') as lexemes
         from notifications n join deliveries d on d.id = n.delivery_id where n.user_id = $1 limit 20`,
      [heavy.userId],
    )
  ).rows as Array<{ title: string; summary: string; labels: Record<string, string>; lexemes: string[] }>;
  const mismatched = sample.filter((r) => {
    const want = searchLexemes({ userId: heavy.userId, title: r.title, summary: r.summary, labels: r.labels }).sort();
    return want.join(' ') !== [...r.lexemes].sort().join(' ');
  }).length;
  log(
    `checks: heavy user ${counts.rows} inbox rows, inbox_counters ${counts.counted}${counts.rows === counts.counted ? '' : ' (MISMATCH)'}; ` +
      `search documents ${sample.length - mismatched}/${sample.length} as the service makes them`,
  );
}

const fmt = (x: number) => (Number.isNaN(x) ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(1));

function table(empty: Results, filled: Results, emptyHeavy: Results, filledHeavy: Results): string[][] {
  const rows: string[][] = [['metric', 'empty', 'filled', 'ratio']];
  const add = (name: string, e: Outcome | undefined, f: Outcome | undefined) => {
    if (!e || !f) return;
    const mark = (o: Outcome) => (o.capped ? '*' : '');
    rows.push([`${name}: calls/s`, `${fmt(e.rate)}${mark(e)}`, `${fmt(f.rate)}${mark(f)}`, (f.rate / e.rate).toFixed(2)]);
    rows.push([`${name}: p50 ms`, fmt(e.p50), fmt(f.p50), (f.p50 / e.p50).toFixed(2)]);
    rows.push([`${name}: p99 ms`, fmt(e.p99), fmt(f.p99), (f.p99 / e.p99).toFixed(2)]);
  };
  for (const [name, e] of empty) add(name, e, filled.get(name));
  for (const [name, e] of emptyHeavy) add(`heavy user ${name}`, e, filledHeavy.get(name));
  return rows;
}

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) console.log(r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
}

runBench(async () => {
  const runId = randomBytes(4).toString('hex');
  const db = await createDatabase();
  const dbName = db.url.slice(db.url.lastIndexOf('/') + 1);
  log(
    `database ${dbName}: ${ROWS.toLocaleString('en')} rows for ${USERS} users (heavy user ${HEAVY_ROWS.toLocaleString('en')}), ${CONCURRENCY} callers x ${SECONDS} s per call`,
  );
  let server: BenchServer | undefined;
  let deps: Deps | undefined;
  const admin = new pg.Client({ connectionString: db.url });
  try {
    // The service migrates the database as it starts.
    server = await startBenchServer(db.url, SERVICE_ENV);
    deps = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', DB_POOL_MAX: '16', ...SERVICE_ENV }, 'bench'), { role: 'cli' });
    await admin.connect();
    // The heavy user: a full page of its own events (55, within its token's window) before the
    // first round, then its share of the fill.
    const [heavy] = await people(deps, `scale-${runId}-heavy`, 1);
    const http0 = new Pool(server.baseUrl, { connections: 1 });
    for (let i = 0; i < PUBLISH_PER_TOKEN; i++) {
      const r = await http0.request({
        method: 'POST',
        path: '/api/v1/events',
        headers: { authorization: `Bearer ${heavy!.token}`, 'content-type': 'application/json' },
        body: eventBody(`scale-${runId}-heavy-${i}`),
      });
      await r.body.text();
      if (r.statusCode !== 202) throw new Error(`the heavy user's events: ${r.statusCode}`);
    }
    await http0.close();
    const round = async (tag: string) => {
      const t = performance.now();
      const warm = await cast(deps!, `scale-${runId}-${tag}-warm`, WARMUP_S);
      const measured = await cast(deps!, `scale-${runId}-${tag}`, SECONDS);
      const h = await heavyCallers(deps!, heavy!);
      log(`${tag}: callers made in ${((performance.now() - t) / 1000).toFixed(1)} s; warm-up ${WARMUP_S} s per call, then ${SECONDS} s per call`);
      const http = new Pool(server!.baseUrl, { connections: CONCURRENCY });
      try {
        await scenarios(http, warm, WARMUP_S, `${runId}-${tag}-warm`);
        const results = await scenarios(http, measured, SECONDS, `${runId}-${tag}`);
        const heavy = await heavyScenarios(http, h.agents, h.tokens, SECONDS);
        // Each round's figures as soon as it ends: a run stopped during the fill keeps the empty round's.
        for (const [name, o] of [...results, ...[...heavy].map(([n, x]) => [`heavy user ${n}`, x] as const)]) {
          log(
            `${tag}: ${name}: ${o.n} calls, ${fmt(o.rate)}/s${o.capped ? '*' : ''}, p50 ${fmt(o.p50)} ms, p99 ${fmt(o.p99)} ms${o.bad ? `, ${o.bad} unexpected` : ''}`,
          );
        }
        return { results, heavy };
      } finally {
        await http.close();
      }
    };

    const empty = await round('empty');
    // A fresh process on the filled database, as after a deploy: plans and caches made on the empty tables are gone.
    await server.stop();
    const fillS = await fill(admin, deps, runId, heavy!);
    log(
      `filled ${ROWS.toLocaleString('en')} deliveries (with inbox and audit rows) in ${fillS.toFixed(1)} s: ${Math.round(ROWS / fillS).toLocaleString('en')} rows/s`,
    );
    await checkFill(admin, heavy!);
    server = await startBenchServer(db.url, SERVICE_ENV);
    const filled = await round('filled');

    console.log(`\n${CONCURRENCY} callers, ${SECONDS} s per call; filled: ${ROWS.toLocaleString('en')} deliveries over ${DAYS} days for ${USERS} users`);
    printTable(table(empty.results, filled.results, empty.heavy, filled.heavy));
    console.log(
      `heavy user: ${PUBLISH_PER_TOKEN} events of its own, then ${HEAVY_ROWS.toLocaleString('en')} more filled. * used up its token budget (SCALE_MAX_RPS) before ${SECONDS} s`,
    );
    console.log(`fill: ${fillS.toFixed(1)} s, ${Math.round(ROWS / fillS).toLocaleString('en')} rows/s (a delivery, its inbox row and its audit row per row)`);
    const sizes = (
      await admin.query(
        `select t as table,
           pg_size_pretty(coalesce((select sum(pg_total_relation_size(i.inhrelid)) from pg_inherits i where i.inhparent = t::regclass), pg_total_relation_size(t))) as total,
           pg_size_pretty(coalesce((select sum(pg_relation_size(i.inhrelid)) from pg_inherits i where i.inhparent = t::regclass), pg_relation_size(t))) as heap
           from unnest(array['deliveries', 'delivery_keys', 'notifications', 'audit_log']) t`,
      )
    ).rows as Array<{ table: string; total: string; heap: string }>;
    for (const s of sizes) console.log(`size ${s.table}: ${s.total} (heap ${s.heap})`);

    const bad = [...empty.results, ...empty.heavy, ...filled.results, ...filled.heavy].filter(([, o]) => o.bad > 0);
    for (const [name, o] of bad) console.log(`WARNING: ${name}: ${o.bad} unexpected answers, e.g. ${o.badSample}`);
    if (bad.length > 0) console.log('WARNING: INVALID RUN');
    return bad.length > 0 ? 1 : 0;
  } finally {
    await server?.stop();
    await deps?.close();
    await admin.end().catch(() => undefined);
    if (KEEP) log(`kept database ${dbName} (SCALE_KEEP=1)`);
    else await db.drop();
  }
});
