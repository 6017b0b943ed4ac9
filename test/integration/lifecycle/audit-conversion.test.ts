// The live in-place conversion of audit_log into monthly partitions (infra/db/partition-conversion.ts):
// a database that already holds audit rows when Migration20261201300000AuditLogPartitions runs, a
// backfill interrupted (stopped between batches, and broken off inside one) and resumed, writers
// (the publish path, the ORM, a client holding a prepared statement as the previous release does)
// inserting all along, and the swap under them.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase, event, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { openOrm } from '../../../src/infra/db/orm.js';
import { advanceConversion, partitionsConvertTask } from '../../../src/infra/db/partition-conversion.js';

const BULK = 20_000;
let db: Awaited<ReturnType<typeof createDatabase>>;
let h: Harness;
let sql: pg.Client;
/** Another session with a named prepared statement, as a process of the previous release holds. */
let previous: pg.Client;
let previousInserts = 0;

const insertPrevious = async (action: string) => {
  await previous.query({
    name: 'previous_release_audit_insert',
    text: `insert into audit_log (id, action, source, created_at) values (gen_random_uuid(), $1, 'api', now())`,
    values: [action],
  });
  previousInserts++;
};
const count = async (where: string, params: unknown[] = []) =>
  (await sql.query(`select count(*)::int as n from audit_log where ${where}`, params)).rows[0].n as number;
const relkind = async (name: string) => (await sql.query(`select relkind from pg_class where relname = $1`, [name])).rows[0]?.relkind as string | undefined;

beforeAll(async () => {
  db = await createDatabase();
  // The database as the previous release left it: every migration before this one, and audit rows
  // over the last three months.
  const orm = await openOrm({ databaseUrl: db.url, dataDir: '.', poolMax: 2, connMaxLifetimeS: 0 });
  await orm.migrator.up({ to: 'Migration20261130200000DeliveryTrace' });
  const c = orm.em.getConnection();
  await c.execute(
    `insert into audit_log (id, action, source, token_id, created_at)
     select gen_random_uuid(), 'test.bulk', 'api', gen_random_uuid(), now() - interval '90 days' + g * interval '6 minutes' from generate_series(1, ${BULK}) g`,
  );
  // Older rows at the end of the heap: the migration's look at the first blocks misses their month.
  await c.execute(
    `insert into audit_log (id, action, source, created_at) select gen_random_uuid(), 'test.ancient', 'api', now() - interval '240 days' from generate_series(1, 5)`,
  );
  await orm.close();
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  previous = new pg.Client({ connectionString: db.url });
  await previous.connect();
  await insertPrevious('test.previous');
  // This release starts: the migration begins the conversion; no maintenance job runs here (WORKER=off), the test drives it.
  h = await startHarness({ databaseUrl: db.url, env: { WORKER: 'off' } });
}, 120_000);

afterAll(async () => {
  await previous?.end();
  await sql?.end();
  await h?.close();
  await db?.drop();
});

it('the migration starts a conversion: a partitioned copy, a mirroring trigger, a progress row', async () => {
  expect(await relkind('audit_log')).toBe('r');
  expect(await relkind('audit_log_p')).toBe('p');
  const p = (await sql.query(`select next_block::int, end_block::int, swapped_at from partition_conversions where table_name = 'audit_log'`)).rows[0];
  expect(p.next_block).toBe(0);
  expect(p.end_block).toBeGreaterThan(100);
  expect(p.swapped_at).toBeNull();
  // A row written now lands in both.
  await insertPrevious('test.previous');
  expect((await sql.query(`select count(*)::int as n from audit_log_p where action = 'test.previous'`)).rows[0].n).toBe(1);
});

it('backfills in resumable batches while writers go on, swaps, and every writer keeps working', async () => {
  const t = await newPersonalToken(h);
  expect((await publish(h, t.token, event(h))).status).toBe(202);

  // Interrupted after three batches (a crash, a stop): the progress row says where to go on.
  const first = await advanceConversion(h.svc.deps.orm, 'audit_log', h.clock.now(), { batchBlocks: 20, maxBatches: 3 });
  expect(first).toMatchObject({ state: 'backfilling', batches: 3 });
  expect((await sql.query(`select next_block::int from partition_conversions where table_name = 'audit_log'`)).rows[0].next_block).toBe(60);
  expect(await relkind('audit_log')).toBe('r');

  // A batch broken off in the middle (its statement cancelled while it waits for a lock held here on
  // the copy; a dying process's transaction rolls back the same way): nothing of the batch stays, and
  // the next run starts at the same block.
  const dying = await openOrm({ databaseUrl: db.url, dataDir: '.', poolMax: 1, connMaxLifetimeS: 0 });
  const blocker = new pg.Client({ connectionString: db.url });
  await blocker.connect();
  try {
    await blocker.query('begin');
    await blocker.query('lock table audit_log_p in share mode');
    const crashed = advanceConversion(dying, 'audit_log', h.clock.now(), { batchBlocks: 20, maxBatches: 1 });
    let pid: number | undefined;
    // Polls for the batch's session to be waiting (a state, not a time rule).
    for (let i = 0; !pid && i < 500; i++) {
      pid = (await sql.query(`select pid from pg_stat_activity where wait_event_type = 'Lock' and query like '%insert into "audit_log_p"%'`)).rows[0]?.pid;
      if (!pid) await new Promise((r) => setTimeout(r, 20));
    }
    expect(pid).toBeDefined();
    await sql.query('select pg_cancel_backend($1)', [pid]);
    await expect(crashed).rejects.toThrow();
  } finally {
    await blocker.query('rollback');
    await blocker.end();
    await dying.close(true).catch(() => undefined);
  }
  expect((await sql.query(`select next_block::int from partition_conversions where table_name = 'audit_log'`)).rows[0].next_block).toBe(60);

  // Writers during the rest of the backfill and the swap: a loop running all along, and inserts
  // between every two batches (so some surely land between them).
  let stop = false;
  let published = 1;
  const writers = (async () => {
    while (!stop) {
      await insertPrevious('test.during');
      expect((await publish(h, t.token, event(h))).status).toBe(202);
      published++;
    }
  })();
  let rest = await advanceConversion(h.svc.deps.orm, 'audit_log', h.clock.now(), { batchBlocks: 20, maxBatches: 1 });
  let between = 0;
  while (rest.state === 'backfilling') {
    await insertPrevious('test.between');
    between++;
    rest = await advanceConversion(h.svc.deps.orm, 'audit_log', h.clock.now(), { batchBlocks: 20, maxBatches: 1 });
  }
  stop = true;
  await writers;
  expect(between).toBeGreaterThanOrEqual(3);
  expect(rest.state).toBe('done');
  expect(rest.swapMs).toBeLessThan(2_000);

  expect(await relkind('audit_log')).toBe('p');
  expect(await relkind('audit_log_p')).toBeUndefined();
  expect(await relkind('audit_log_legacy')).toBeUndefined();
  expect((await sql.query(`select count(*)::int as n from pg_trigger where tgname = 'audit_log_mirror'`)).rows[0].n).toBe(0);
  const ix = await sql.query(`select indexname from pg_indexes where tablename = 'audit_log' order by 1`);
  expect(ix.rows.map((r: { indexname: string }) => r.indexname)).toEqual(['audit_log_pkey', 'audit_log_token_id_created_at_index']);

  // None lost, none doubled.
  expect(await count(`action = 'test.bulk'`)).toBe(BULK);
  expect(await count(`action = 'test.ancient'`)).toBe(5);
  expect(await count(`action in ('test.previous', 'test.during', 'test.between')`)).toBe(previousInserts);
  expect(await count(`action = 'test.between'`)).toBe(between);
  expect(await count(`token_id = $1 and action = 'inbound.event.received'`, [t.tokenId])).toBe(published);
  const dup = await sql.query(`select count(*)::int as n, count(distinct id)::int as d from audit_log`);
  expect(dup.rows[0].n).toBe(dup.rows[0].d);
  // The ancient rows' month was created by the backfill.
  const ancient = await sql.query(`select distinct tableoid::regclass::text as part from audit_log where action = 'test.ancient'`);
  expect(ancient.rows).toHaveLength(1);

  // After the swap: the publish path (prepared statements made before it), the ORM, and the
  // previous release's prepared statement all write to the partitioned table.
  expect((await publish(h, t.token, event(h))).status).toBe(202);
  expect(await count(`token_id = $1 and action = 'inbound.event.received'`, [t.tokenId])).toBe(published + 1);
  const t2 = await newPersonalToken(h);
  expect(await count(`token_id = $1`, [t2.tokenId])).toBeGreaterThanOrEqual(1);
  await insertPrevious('test.after');
  expect(await count(`action = 'test.after'`)).toBe(1);

  // The job has nothing left to do.
  const again = await partitionsConvertTask.run(h.svc.deps, h.clock.now());
  expect(again.results).toEqual([{ table: 'audit_log', copied: 0, batches: 0, state: 'done' }]);
}, 120_000);
