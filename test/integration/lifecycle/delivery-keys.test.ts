// The dedup key table (Migration20261201400000DeliveryKeys and ...Backfill): the publish path
// decides first arrival or repeat in delivery_keys, the keys of deliveries that existed before the
// upgrade are backfilled by the migration, and the previous release's writes (connections without
// `fluxdesk.writes_delivery_keys`) get their keys from the trigger. On the schema this release's
// own migrations leave, before the post-deploy migration partitions deliveries
// (deliveries-partitioned.test.ts): the state of a fleet in the middle of its rollout.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { event, http, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { migrate, openOrm } from '../../../src/infra/db/orm.js';

let h: Harness;
let sql: pg.Client;

const keyOf = async (tokenId: string, eventId: string) =>
  (await sql.query(`select delivery_id, created_at from delivery_keys where token_id = $1 and event_id = $2`, [tokenId, eventId])).rows;

beforeAll(async () => {
  h = await startHarness({ env: { MIGRATE_POST_DEPLOY: 'off' } });
  sql = new pg.Client({ connectionString: h.databaseUrl });
  await sql.connect();
}, 60_000);

afterAll(async () => {
  await sql?.end();
  await h?.close();
});

it('a first arrival writes its key (the delivery id and time), a repeat finds it', async () => {
  const t = await newPersonalToken(h);
  const ev = event(h);
  const first = await publish(h, t.token, ev);
  expect(first.status).toBe(202);
  const [d] = (await sql.query(`select id, created_at from deliveries where id = $1`, [first.body.deliveryId])).rows;
  expect(await keyOf(t.tokenId, ev.event_id as string)).toEqual([{ delivery_id: d.id, created_at: d.created_at }]);
  const again = await publish(h, t.token, ev);
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ deliveryId: d.id, fireCount: 2, deduped: true });
});

it("the previous release's writes (no session setting) get their keys from the trigger; this release dedups them", async () => {
  const t = await newPersonalToken(h);
  const ev = event(h);
  const first = await publish(h, t.token, ev);
  // A delivery as the previous release inserts it: `insert into deliveries ... on conflict (token_id, event_id)`.
  const previous = new pg.Client({ connectionString: h.databaseUrl });
  await previous.connect();
  try {
    const [row] = (
      await previous.query(
        `insert into deliveries (id, token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, title, occurred_at, created_at, last_event_at, fire_count)
         select gen_random_uuid(), token_id, integrator_id, recipient_user_id, project_id, 'previous-' || event_id, event_type, severity, title, occurred_at, created_at, last_event_at, 1
         from deliveries where id = $1
         on conflict (token_id, event_id) do update set fire_count = deliveries.fire_count + 1
         returning id, event_id`,
        [first.body.deliveryId],
      )
    ).rows;
    expect((await keyOf(t.tokenId, row.event_id)).map((k) => k.delivery_id)).toEqual([row.id]);
    const repeat = await publish(h, t.token, { ...ev, event_id: row.event_id });
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ deliveryId: row.id, fireCount: 2, deduped: true });
  } finally {
    await previous.end();
  }
});

it('a key whose delivery is gone (a day old or more) is taken over: the event_id arrives as new', async () => {
  const t = await newPersonalToken(h);
  const ev = event(h);
  const first = await publish(h, t.token, ev);
  expect(first.status).toBe(202);
  // Retention removed the delivery and its inbox row but not (yet) its key.
  await sql.query(`update delivery_keys set created_at = created_at - interval '40 days' where delivery_id = $1`, [first.body.deliveryId]);
  await sql.query(`delete from nudge_outbox where delivery_id = $1`, [first.body.deliveryId]);
  await sql.query(`delete from notifications where delivery_id = $1`, [first.body.deliveryId]);
  await sql.query(`delete from deliveries where id = $1`, [first.body.deliveryId]);
  const again = await publish(h, t.token, ev);
  expect(again.status).toBe(202);
  expect(again.body).toMatchObject({ fireCount: 1, deduped: false });
  expect(again.body.deliveryId).not.toBe(first.body.deliveryId);
  expect((await keyOf(t.tokenId, ev.event_id as string)).map((k) => k.delivery_id)).toEqual([again.body.deliveryId]);
  const repeat = await publish(h, t.token, ev);
  expect(repeat.body).toMatchObject({ deliveryId: again.body.deliveryId, fireCount: 2, deduped: true });
});

it('a publish that waited on a key committed after its statement began is written again, as a repeat', async () => {
  const t = await newPersonalToken(h);
  const ev = event(h);
  const first = await publish(h, t.token, { ...ev, event_id: `${ev.event_id}-seed` });
  // Another writer's first arrival of the same key, uncommitted: its key and delivery.
  const other = new pg.Client({ connectionString: h.databaseUrl });
  await other.connect();
  try {
    await other.query('begin');
    await other.query(`set local fluxdesk.writes_delivery_keys = on`);
    const [row] = (
      await other.query(
        `with k as (insert into delivery_keys (token_id, event_id, delivery_id, created_at) values ($2, $3, gen_random_uuid(), now()) returning delivery_id, created_at)
         insert into deliveries (id, token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, title, occurred_at, created_at, last_event_at, fire_count)
         select k.delivery_id, token_id, integrator_id, recipient_user_id, project_id, $3, event_type, severity, title, occurred_at, k.created_at, k.created_at, 1
         from deliveries, k where id = $1 returning id`,
        [first.body.deliveryId, t.tokenId, ev.event_id],
      )
    ).rows;
    const pending = publish(h, t.token, ev);
    // The publish statement waits on the uncommitted key.
    for (let i = 0; i < 200; i++) {
      const waiting = await sql.query(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%delivery_keys%'`,
      );
      if (waiting.rows[0].n > 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await other.query('commit');
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ deliveryId: row.id, fireCount: 2, deduped: true });
  } finally {
    await other.end();
  }
});

it('an upgrade backfills the keys of every delivery that existed before it, in batches, and they dedup', async () => {
  const t = await newPersonalToken(h);
  const ev = event(h);
  const first = await publish(h, t.token, ev);
  expect(first.status).toBe(202);
  // The database as the previous release left it: no key table, deliveries (over 500 heap blocks,
  // so several batches) that have no keys.
  await sql.query(`drop table delivery_keys`);
  await sql.query(`drop function delivery_keys_sync() cascade`);
  await sql.query(`delete from mikro_orm_migrations where name like 'Migration20261201400%DeliveryKeys%'`);
  await sql.query(
    `insert into deliveries (id, token_id, integrator_id, recipient_user_id, project_id, event_id, event_type, severity, title, summary, occurred_at, created_at, last_event_at, fire_count)
     select gen_random_uuid(), token_id, integrator_id, recipient_user_id, project_id, 'bulk-' || g, event_type, severity, title, repeat('s', 400), occurred_at, created_at, last_event_at, 1
     from deliveries, generate_series(1, 12000) g where id = $1`,
    [first.body.deliveryId],
  );
  const blocks = (await sql.query(`select pg_relation_size('deliveries') / 8192 as b`)).rows[0].b;
  expect(Number(blocks)).toBeGreaterThan(500);

  const orm = await openOrm({ databaseUrl: h.databaseUrl, dataDir: '.', poolMax: 1, connMaxLifetimeS: 0 });
  try {
    expect(await migrate(orm, h.databaseUrl)).toEqual(['Migration20261201400000DeliveryKeys', 'Migration20261201400100DeliveryKeysBackfill']);
  } finally {
    await orm.close();
  }
  const missing = await sql.query(
    `select count(*)::int as n from deliveries d where not exists (select 1 from delivery_keys k where k.token_id = d.token_id and k.event_id = d.event_id and k.delivery_id = d.id and k.created_at = d.created_at)`,
  );
  expect(missing.rows[0].n).toBe(0);
  expect((await sql.query(`select count(*)::int as n from delivery_keys`)).rows[0].n).toBe(
    (await sql.query(`select count(*)::int as n from deliveries`)).rows[0].n,
  );
  // A backfilled key dedups: the service's prepared statements meet the new table (re-planned).
  const repeat = await publish(h, t.token, ev);
  expect(repeat.status).toBe(200);
  expect(repeat.body).toMatchObject({ deliveryId: first.body.deliveryId, fireCount: 2 });
  const bulk = await publish(h, t.token, { ...ev, event_id: 'bulk-11999' });
  expect(bulk.status).toBe(200);
  expect(bulk.body).toMatchObject({ fireCount: 2, deduped: true });
});

it('dedup holds across a month boundary: fired on the last day and on the first, one delivery with fireCount 2', async () => {
  const t = await newPersonalToken(h);
  const now = h.clock.now();
  const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  h.clock.advance(nextMonth - 60_000 - now.getTime());
  try {
    const ev = event(h);
    const first = await publish(h, t.token, ev);
    expect(first.status).toBe(202);
    h.clock.advance(120_000);
    const again = await publish(h, t.token, ev);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ deliveryId: first.body.deliveryId, fireCount: 2, deduped: true });
    const [d] = (await sql.query(`select created_at, last_event_at from deliveries where id = $1`, [first.body.deliveryId])).rows;
    expect(new Date(d.created_at).getTime()).toBeLessThan(nextMonth);
    expect(new Date(d.last_event_at).getTime()).toBeGreaterThanOrEqual(nextMonth);
  } finally {
    h.clock.reset();
  }
});

it('readiness fails within a week of the bound of a range check an interrupted partitioning left, naming the table and the command', async () => {
  try {
    for (const table of ['deliveries', 'notifications']) {
      // Past the readiness probe's 30 s reuse of a pass (the clock is reset after both tables).
      h.clock.advance(31_000);
      try {
        await sql.query(
          `alter table ${table} add constraint ${table}_legacy_range check (created_at < '${new Date(h.clock.now().getTime() + 3 * 86_400_000).toISOString()}'::timestamptz) not valid`,
        );
        const down = await http(h, 'GET', '/api/v1/ready');
        expect(down.status).toBe(503);
        expect(down.body).toMatchObject({ code: 'not_ready', failing: ['partitions'] });
        expect(String(down.body.detail)).toContain('migrate --post-deploy');
        expect(String(down.body.detail)).toContain(`${table}_legacy_range`);
        await sql.query(`alter table ${table} drop constraint ${table}_legacy_range`);
        h.clock.advance(1_100); // past readiness' 1 s sharing of one round of checks
        const up = await http(h, 'GET', '/api/v1/ready');
        expect(up.status, JSON.stringify(up.body)).toBe(200);
      } finally {
        await sql.query(`alter table ${table} drop constraint if exists ${table}_legacy_range`);
      }
    }
  } finally {
    h.clock.reset();
  }
});
