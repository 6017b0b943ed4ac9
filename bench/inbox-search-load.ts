// The calls of `npm run bench:search` (bench/inbox-search.ts), made and timed in a process of their
// own: it loads nothing of the service, so its small heap's garbage collections stay out of the
// latencies. Reads the job (SearchLoadJob) as JSON on stdin; prints the table. Each query of the
// mix is sent by `concurrency` clients at once through Connect ListInbox (the web app's call), on
// each view: `warmup` rounds not counted, then `rounds` counted, with the service's and
// PostgreSQL's CPU per call over those rounds.
import { readFileSync } from 'node:fs';
import { cpuPerRequest, cpuSnap } from './cpu.js';

export interface SearchLoadJob {
  baseUrl: string;
  /** Agent tokens (read:inbox) of the searching user, each used for `callsPerToken` calls in a row. */
  tokens: string[];
  callsPerToken: number;
  views: string[];
  /** '' is the view without a search (listed, not counted in "all searches"). */
  queries: string[];
  concurrency: number;
  rounds: number;
  warmup: number;
  servicePid: number;
  dbName: string;
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;

async function main(job: SearchLoadJob): Promise<void> {
  let call = 0;
  const list = async (view: string, query: string) => {
    const token = job.tokens[Math.floor(call++ / job.callsPerToken)];
    if (token === undefined) throw new Error('the bench made too few agent tokens for its calls');
    const t = performance.now();
    const r = await fetch(`${job.baseUrl}/fluxdesk.inbox.v1.InboxService/ListInbox`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ view, limit: 50, ...(query ? { query } : {}) }),
    });
    const body = (await r.json()) as { totalCount?: number; totalCountCapped?: boolean };
    const ms = performance.now() - t;
    if (r.status !== 200) throw new Error(`${view} ${query}: ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
    return { ms, total: body.totalCount ?? 0, capped: body.totalCountCapped === true };
  };
  const burst = (view: string, query: string) => Promise.all(Array.from({ length: job.concurrency }, () => list(view, query)));
  // Warm-up, not counted: `warmup` rounds of each query per view, so that every pooled connection
  // has prepared each statement and run it past PostgreSQL's first five executions, which plan it
  // for their values (a custom plan each time) before it settles on one plan: as on a service that
  // has run a while. BENCH_SEARCH_WARMUP=1 measures a service that has just started.
  for (const v of job.views) for (const q of job.queries) for (let r = 0; r < job.warmup; r++) await burst(v, q);
  const all: number[] = [];
  const rows: string[] = [];
  const cpuAll = { service: 0, postgres: 0, loadgen: 0, calls: 0 };
  for (const v of job.views) {
    for (const q of job.queries) {
      const ms: number[] = [];
      let total = '';
      const before = cpuSnap(job.servicePid, job.dbName);
      for (let r = 0; r < job.rounds; r++) {
        const res = await burst(v, q);
        for (const x of res) ms.push(x.ms);
        total = `${res[0]!.total}${res[0]!.capped ? '+' : ''}`;
      }
      const cpu = cpuPerRequest(before, cpuSnap(job.servicePid, job.dbName), ms.length);
      if (q !== '') {
        all.push(...ms);
        cpuAll.service += cpu.service * ms.length;
        cpuAll.postgres += cpu.postgres * ms.length;
        cpuAll.loadgen += cpu.loadgen * ms.length;
        cpuAll.calls += ms.length;
      }
      const f = (x: number) => x.toFixed(1).padStart(6);
      rows.push(
        `${v.padEnd(5)} ${(q === '' ? '(no query)' : q).padEnd(38)} ${total.padStart(7)}  p50 ${f(percentile(ms, 50))}  p99 ${f(percentile(ms, 99))}  max ${f(Math.max(...ms))} ms  cpu svc ${cpu.service.toFixed(1).padStart(4)} pg ${cpu.postgres.toFixed(1).padStart(4)} ms/call`,
      );
    }
  }
  console.log(
    `\n${job.concurrency} concurrent ListInbox calls per query, ${job.rounds} rounds (${job.concurrency * job.rounds} calls each) after ${job.warmup} not counted, limit 50:`,
  );
  console.log('view  query                                  matches');
  for (const r of rows) console.log(r);
  const per = (x: number) => (x / Math.max(1, cpuAll.calls)).toFixed(2);
  console.log(
    `\nall searches: ${all.length} calls, p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms, max ${Math.max(...all).toFixed(1)} ms; cpu per call: service ${per(cpuAll.service)}, PostgreSQL ${per(cpuAll.postgres)}, load generator ${per(cpuAll.loadgen)} ms (10 ms ticks)`,
  );
}

if (import.meta.main) {
  main(JSON.parse(readFileSync(0, 'utf8')) as SearchLoadJob).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
