// Partitions ahead across processes: three `npm start` children (WORKER=on, MIGRATE_POST_DEPLOY=on,
// so deliveries is partitioned too) start at once on one fresh database. One applies the
// migrations (the others wait for the lock), each creates the missing months at start-up
// (serialised by an advisory lock, so no "already exists" race), and the daily `partitions.ahead`
// job runs once for the three.
import pg from 'pg';
import { expect, it } from 'vitest';
import { childWorld, startChild } from '../../helpers/child-service.js';
import { until } from '../nudges/receiver.js';

const world = childWorld();

const nameOf = (table: string, m: Date) => `${table}_${m.getUTCFullYear()}_${String(m.getUTCMonth() + 1).padStart(2, '0')}`;

it('three processes: partitions for this month and the next two exist once, and the ahead job ran once', async () => {
  const env = { MIGRATE_POST_DEPLOY: 'on' };
  const children = await Promise.all([startChild(world.db.url, env), startChild(world.db.url, env), startChild(world.db.url, env)]);
  const sql = new pg.Client({ connectionString: world.db.url });
  await sql.connect();
  try {
    const jobs = async () =>
      (await sql.query(`select state, count(*)::int as n from pgboss.job where name = 'maintenance/partitions.ahead' group by state`)).rows as {
        state: string;
        n: number;
      }[];
    await until('the ahead job to complete', async () => (await jobs()).some((r) => r.state === 'completed'), 60_000);
    // Every process ticks at start and every 30 s: still one job for the day's slot.
    expect(await jobs()).toEqual([{ state: 'completed', n: 1 }]);
    const now = new Date();
    for (const table of ['audit_log', 'deliveries']) {
      const want = [0, 1, 2].map((i) => nameOf(table, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i, 1))));
      const parts = await sql.query(
        `select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = $1::regclass and c.relkind = 'r' order by 1`,
        [table],
      );
      expect(parts.rows.map((r: { relname: string }) => r.relname)).toEqual(want);
    }
    for (const c of children) {
      expect((await fetch(`${c.baseUrl}/api/v1/ready`)).status).toBe(200);
      expect(c.log.join('\n')).not.toMatch(/already exists|maintenance task failed/);
    }
  } finally {
    await sql.end();
  }
}, 120_000);
