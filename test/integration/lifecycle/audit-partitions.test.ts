// audit_log as monthly partitions (docs/scaling.md section 4) on a fresh database: created
// partitioned at once by its migration, partitions ahead, readiness while next month's is missing,
// and the retention that drops whole expired months (`fluxdesk retention`, the daily job).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, operator, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { partitionsAheadTask, partitionsRetentionTask } from '../../../src/infra/db/partition-tasks.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const DAY = 86_400_000;

let h: Harness;
let sql: pg.Client;

const monthOf = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
const plusMonths = (m: Date, n: number) => new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + n, 1));
const nameOf = (m: Date) => `audit_log_${m.getUTCFullYear()}_${String(m.getUTCMonth() + 1).padStart(2, '0')}`;

async function partitions(): Promise<string[]> {
  const r = await sql.query(`select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'audit_log'::regclass order by 1`);
  return r.rows.map((x: { relname: string }) => x.relname);
}

beforeAll(async () => {
  h = await startHarness({ env: { WORKER: 'off' } });
  sql = new pg.Client({ connectionString: h.databaseUrl });
  await sql.connect();
});
afterAll(async () => {
  await sql?.end();
  await h?.close();
});

describe('a fresh database', () => {
  it('has audit_log partitioned by month at once: the current month and the next two, no default', async () => {
    const kind = await sql.query(`select relkind from pg_class where relname = 'audit_log'`);
    expect(kind.rows[0].relkind).toBe('p');
    const now = monthOf(h.clock.now());
    expect(await partitions()).toEqual([nameOf(now), nameOf(plusMonths(now, 1)), nameOf(plusMonths(now, 2))]);
    const bound = await sql.query(`select pg_get_expr(c.relpartbound, c.oid) as b from pg_class c where c.relname = $1`, [nameOf(now)]);
    expect(bound.rows[0].b).toBe(
      `FOR VALUES FROM ('${now.toISOString().slice(0, 10)} 00:00:00+00') TO ('${plusMonths(now, 1).toISOString().slice(0, 10)} 00:00:00+00')`,
    );
    const pk = await sql.query(`select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = 'audit_log'::regclass and contype = 'p'`);
    expect(pk.rows[0].def).toBe('PRIMARY KEY (id, created_at)');
    const ix = await sql.query(`select indexname from pg_indexes where tablename = 'audit_log' order by 1`);
    expect(ix.rows.map((r: { indexname: string }) => r.indexname)).toEqual(['audit_log_pkey', 'audit_log_token_id_created_at_index']);
    // No conversion to run.
    expect((await sql.query(`select count(*)::int as n from partition_conversions`)).rows[0].n).toBe(0);
  });

  it('writes audit rows through the publish path and the ORM', async () => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, event(h));
    expect(r.status).toBe(202);
    const rows = await sql.query(`select tableoid::regclass::text as part, action from audit_log where token_id = $1 order by created_at`, [t.tokenId]);
    expect(rows.rows.map((x: { action: string }) => x.action)).toContain('inbound.event.received');
    expect(rows.rows[0].part).toBe(nameOf(monthOf(h.clock.now())));
  });
});

describe('partitions ahead and readiness', () => {
  it('answers 503 naming the table while next month has no partition, and 200 after the job', async () => {
    expect((await http(h, 'GET', '/api/v1/ready')).status).toBe(200);
    const next = nameOf(plusMonths(monthOf(h.clock.now()), 1));
    await sql.query(`drop table ${next}`);
    // A positive answer is reused for 30 s of clock time.
    h.clock.advance(31_000);
    const down = await http(h, 'GET', '/api/v1/ready');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ code: 'not_ready', failing: ['partitions'], checks: { partitions: 'failing', postgres: 'ok' } });
    expect(down.body.detail).toContain('audit_log');
    expect(down.body.detail).toContain('next month');

    const r = await partitionsAheadTask.run(h.svc.deps, h.clock.now());
    expect(r.created).toEqual([next]);
    // Past the readiness round's own 1 s cache (a failure itself is not cached).
    h.clock.advance(1_100);
    expect((await http(h, 'GET', '/api/v1/ready')).status).toBe(200);
    // Idempotent.
    expect((await partitionsAheadTask.run(h.svc.deps, h.clock.now())).created).toEqual([]);
  });
});

describe('retention (AUDIT_RETENTION_DAYS, default 400)', () => {
  it('drops exactly the months wholly past the retention; the dry run changes nothing', async () => {
    const now = h.clock.now();
    const cutoff = new Date(now.getTime() - 400 * DAY);
    // Months from 16 months back up to last month, each with rows on its first and last day.
    const first = plusMonths(monthOf(now), -16);
    const old: Date[] = [];
    for (let m = first; m < monthOf(now); m = plusMonths(m, 1)) old.push(m);
    for (const m of old) {
      await sql.query(
        `create table if not exists ${nameOf(m)} partition of audit_log for values from ($$${m.toISOString()}$$) to ($$${plusMonths(m, 1).toISOString()}$$)`,
      );
      await sql.query(
        `insert into audit_log (id, action, source, created_at) values (gen_random_uuid(), 'test.old', 'job', $1), (gen_random_uuid(), 'test.old', 'job', $2)`,
        [m, new Date(plusMonths(m, 1).getTime() - 1000)],
      );
    }
    await sql.query('analyze audit_log');
    const expired = old.filter((m) => plusMonths(m, 1).getTime() <= cutoff.getTime());
    const partial = old.find((m) => m <= cutoff && plusMonths(m, 1) > cutoff)!;
    expect(expired.length).toBeGreaterThanOrEqual(2);
    expect(partial).toBeDefined();

    // `fluxdesk retention` (the CLI binary) lists them and drops nothing.
    const before = await partitions();
    const run = spawnSync(process.execPath, [path.join(ROOT, 'bin/fluxdesk.js'), 'retention'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: h.databaseUrl, LOG_LEVEL: 'warn', WORKER: 'off' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const plan = JSON.parse(run.stdout);
    expect(plan.applied).toBe(false);
    expect(plan.retention_days).toEqual({ audit: 400, delivery: 90 });
    expect(plan.partitions).toEqual(
      expired.map((m) => ({ table: 'audit_log', partition: nameOf(m), from: m.toISOString(), to: plusMonths(m, 1).toISOString(), rows_estimate: 2 })),
    );
    expect(await partitions()).toEqual(before);
    expect((await sql.query(`select count(*)::int as n from audit_log where action = 'test.old'`)).rows[0].n).toBe(2 * old.length);

    // The same through the operator command, then the daily job applies it.
    const dry = await operator(h, 'partitions.retention', { apply: false });
    expect(dry.partitions.map((p: { partition: string }) => p.partition)).toEqual(expired.map(nameOf));
    const r = await partitionsRetentionTask.run(h.svc.deps, h.clock.now());
    expect(r.dropped).toEqual(expired.map(nameOf));
    const after = await partitions();
    for (const m of expired) expect(after).not.toContain(nameOf(m));
    expect(after).toContain(nameOf(partial));
    expect((await sql.query(`select to_regclass($1) as t`, [nameOf(expired[0]!)])).rows[0].t).toBeNull();
    // The partially expired month keeps both its rows, the older one included.
    expect((await sql.query(`select count(*)::int as n from ${nameOf(partial)}`)).rows[0].n).toBe(2);
    expect((await sql.query(`select count(*)::int as n from audit_log where action = 'test.old'`)).rows[0].n).toBe(2 * (old.length - expired.length));
    // Nothing left to drop.
    expect((await partitionsRetentionTask.run(h.svc.deps, h.clock.now())).dropped).toEqual([]);
  }, 90_000);
});
