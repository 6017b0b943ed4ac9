// The post-deploy migrations Migration20261202000000DeliveriesPartitioned and
// Migration20261203000000InboxPartitioned on a live database: the service runs on the schema its own
// migrations left (deliveries, notifications and delivery_supplements plain tables, dedup in
// delivery_keys) with rows in them, then `migrate --post-deploy` turns each into a partitioned table
// whose first partition is the old table ([MINVALUE, B), B the first day of the month after next),
// while the service goes on publishing. Then: new rows land in the legacy
// partition until B and in monthly partitions after it, dedup holds across B, readiness counts
// the legacy partition as next month's, and retention drops the expired months with their keys and
// inbox rows, keeping the inbox counters exact; an expired event_id fired again is a new delivery.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { event, http, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { migrate, openOrm } from '../../../src/infra/db/orm.js';
import {
  addMonths,
  dropExpiredPartitions,
  ensurePartitionsAhead,
  expiredPartitions,
  missingNextMonth,
  monthStart,
  partitionName,
} from '../../../src/infra/db/partitions.js';
import type { MikroORM } from '@mikro-orm/core';
import { newAgent, toolOk } from '../mcp/rpc.js';

let h: Harness;
let sql: pg.Client;
let orm: MikroORM;
let t1: TestToken;
let t2: TestToken;
const events: Record<string, Record<string, unknown>> = {};
const ids: Record<string, string> = {};
/** B: where the legacy partition ends and monthly partitions begin. */
let bound: Date;

const q = async (text: string, params: unknown[] = []) => (await sql.query(text, params)).rows;
const partitionOf = async (deliveryId: string) => (await q(`select tableoid::regclass::text as p from deliveries where id = $1`, [deliveryId]))[0]?.p as string;
const inboxPartitionOf = async (deliveryId: string) =>
  (await q(`select tableoid::regclass::text as p from notifications where delivery_id = $1`, [deliveryId]))[0]?.p as string;
const supplement = async (t: TestToken, deliveryId: string, text: string) =>
  http(h, 'POST', `/api/v1/events/${deliveryId}/supplement`, { token: t.token, body: { markdown_body: text } });
/** The children of `table`, with their bounds. */
const childrenOf = async (table: string) =>
  q(
    `select c.relname, pg_get_expr(c.relpartbound, c.oid) as bound from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = $1::regclass order by 1`,
    [table],
  );
/** The indexes of `table`'s legacy partition, each with the partitioned index it is attached to (and that one's definition). */
const legacyIndexes = async (table: string) =>
  q(
    `select p.relname as parent, c.relname as child, pg_get_indexdef(p.oid) as def from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
      where c.relname like $1 and c.relkind = 'i' order by 1`,
    [`${table}\\_legacy\\_%`],
  );
/** A notification without a delivery (the work features write such rows), in `userId`'s inbox. */
let plainNotificationId: string;
const send = async (t: TestToken, name: string) => {
  events[name] ??= event(h, { event_id: `${name}-${t.tokenId.slice(0, 8)}` });
  // Sent now (the service clock): a re-fire months later carries a fresh occurred_at.
  const r = await publish(h, t.token, { ...events[name], occurred_at: new Date(h.clock.now().getTime() - 60_000).toISOString() });
  if (r.status === 202) ids[name] = r.body.deliveryId;
  return r;
};

/** Every user's inbox counter rows equal the inbox rows themselves. */
async function expectCountersExact(userId: string) {
  const truth = await q(
    `select state, count(*)::int as total, count(*) filter (where read_at is null)::int as unread from notifications where user_id = $1 group by state order by state`,
    [userId],
  );
  const counted = await q(
    `select state, sum(total)::int as total, sum(unread)::int as unread from inbox_counters where user_id = $1 group by state having sum(total) > 0 order by state`,
    [userId],
  );
  expect(counted).toEqual(truth);
}

beforeAll(async () => {
  // The rollout in progress: this release's migrations, not the post-deploy one; no maintenance jobs (the test drives them).
  h = await startHarness({ env: { MIGRATE_POST_DEPLOY: 'off', WORKER: 'off' } });
  sql = new pg.Client({ connectionString: h.databaseUrl });
  await sql.connect();
  orm = await openOrm({ databaseUrl: h.databaseUrl, dataDir: '.', poolMax: 2, connMaxLifetimeS: 0 });
  t1 = await newPersonalToken(h);
  t2 = await newPersonalToken(h);
}, 60_000);

afterAll(async () => {
  await orm?.close();
  await sql?.end();
  await h?.close();
});

it('converts a table with rows in place while the service publishes: the old table becomes the legacy partition', async () => {
  for (const [t, name] of [
    [t1, 'e1'],
    [t1, 'e2'],
    [t2, 'e3'],
  ] as const)
    expect((await send(t, name)).status).toBe(202);
  await q(`update notifications set read_at = now() where delivery_id = $1`, [ids.e2]);
  expect((await supplement(t1, ids.e1!, 'before the conversion')).status).toBe(201);
  [{ id: plainNotificationId }] = await q(
    `insert into notifications (id, user_id, type, title, created_at, updated_at) values (gen_random_uuid(), $1, 'system', 'no delivery', now(), now()) returning id`,
    [t1.user.userId],
  );
  const seqBefore = (await q(`select max(seq)::int as n from delivery_supplements`))[0].n as number;
  expect((await q(`select relkind from pg_class where relname = 'deliveries'`))[0].relkind).toBe('r');
  // A range check an interrupted run left, its bound too close now (it binds every new row): replaced, not kept.
  await q(
    `alter table deliveries add constraint deliveries_legacy_range check (created_at < '${new Date(Date.now() + 86_400_000).toISOString()}'::timestamptz) not valid`,
  );

  // Publishes go on while the post-deploy migration runs.
  let stop = false;
  const during: number[] = [];
  const load = (async () => {
    for (let i = 0; !stop; i++) during.push((await publish(h, t2.token, event(h, { event_id: `during-${i}` }))).status);
  })();
  let applied: string[];
  try {
    applied = await migrate(orm, h.databaseUrl, { postDeploy: true });
  } finally {
    stop = true;
    await load;
  }
  expect(applied).toEqual(['Migration20261202000000DeliveriesPartitioned', 'Migration20261203000000InboxPartitioned']);
  expect(during.length).toBeGreaterThan(0);
  expect(during.every((s) => s === 202)).toBe(true);

  bound = addMonths(monthStart(new Date()), 2);
  expect((await q(`select relkind from pg_class where relname = 'deliveries'`))[0].relkind).toBe('p');
  for (const table of ['deliveries', 'notifications', 'delivery_supplements']) {
    expect((await q(`select relkind from pg_class where relname = $1`, [table]))[0].relkind).toBe('p');
    const parts = await childrenOf(table);
    expect(parts.map((p) => p.relname)).toEqual([partitionName(table, bound), partitionName(table, addMonths(bound, 1)), `${table}_legacy`]);
    expect(parts.find((p) => p.relname === `${table}_legacy`).bound).toMatch(/^FOR VALUES FROM \(MINVALUE\) TO \(/);
    const [legacy] = await q(`select partition, until from partition_legacy where table_name = $1`, [table]);
    expect({ partition: legacy.partition, until: new Date(legacy.until).toISOString() }).toEqual({ partition: `${table}_legacy`, until: bound.toISOString() });
    // The range check stays on the old table only.
    expect((await q(`select conrelid::regclass::text as r from pg_constraint where conname = $1`, [`${table}_legacy_range`])).map((r) => r.r)).toEqual([
      `${table}_legacy`,
    ]);
  }
  // The old table's indexes serve as the legacy partition's (attached, not built again).
  const attached = await legacyIndexes('deliveries');
  expect(attached.map((r) => `${r.parent} <- ${r.child}`)).toEqual([
    'deliveries_event_type_created_at_index <- deliveries_legacy_event_type_created_at_index',
    'deliveries_integrator_id_created_at_index <- deliveries_legacy_integrator_id_created_at_index',
    'deliveries_pkey <- deliveries_legacy_pkey',
    'deliveries_token_id_created_at_index <- deliveries_legacy_token_id_created_at_index',
  ]);
  // Every row stayed where it was; no foreign key points into the partitioned table; the 0.26-era trigger is gone.
  expect(await partitionOf(ids.e1!)).toBe('deliveries_legacy');
  expect((await q(`select count(*)::int as n from pg_constraint where confrelid = 'deliveries'::regclass`))[0].n).toBe(0);
  expect((await q(`select count(*)::int as n from pg_trigger where tgname = 'delivery_keys_sync'`))[0].n).toBe(0);
  expect((await q(`select count(*)::int as n from deliveries`))[0].n).toBe(3 + during.length);
  // The inbox: the old indexes attached (keys re-keyed with created_at), the counters' triggers on the partitioned table only.
  const inboxIndexes = await legacyIndexes('notifications');
  expect(inboxIndexes.map((r) => `${r.parent} <- ${r.child}`)).toEqual([
    'notifications_delivery_id_unique <- notifications_legacy_delivery_id_unique',
    'notifications_pkey <- notifications_legacy_pkey',
    'notifications_search_backlog_index <- notifications_legacy_search_backlog_index',
    'notifications_search_index <- notifications_legacy_search_index',
    'notifications_snoozed_until_index <- notifications_legacy_snoozed_until_index',
    'notifications_user_state_listed_index <- notifications_legacy_user_state_listed_index',
  ]);
  expect(inboxIndexes.find((r) => r.parent === 'notifications_pkey').def).toMatch(/\(id, created_at\)$/);
  // The index only the previous release read is gone, from the old table too.
  expect((await q(`select count(*)::int as n from pg_class where relname like 'notifications%user_id_created_at_id%'`))[0].n).toBe(0);
  expect(inboxIndexes.find((r) => r.parent === 'notifications_delivery_id_unique').def).toMatch(/\(delivery_id, created_at\)$/);
  const triggers = await q(
    `select tgrelid::regclass::text as t, count(*)::int as n from pg_trigger where tgname like 'notifications_inbox_counters_%' group by 1`,
  );
  expect(triggers).toEqual([{ t: 'notifications', n: 4 }]);
  expect(await inboxPartitionOf(ids.e1!)).toBe('notifications_legacy');
  expect((await q(`select count(*)::int as n from notifications where delivery_id is not null`))[0].n).toBe(3 + during.length);
  await expectCountersExact(t1.user.userId);
  await expectCountersExact(t2.user.userId);
  // Supplements: the old row kept; the identity goes on from the old sequence.
  expect((await supplement(t1, ids.e1!, 'after the conversion')).status).toBe(201);
  const supplements = await q(`select markdown_body, seq::int, tableoid::regclass::text as p from delivery_supplements where delivery_id = $1 order by seq`, [
    ids.e1,
  ]);
  expect(supplements.map((r) => [r.markdown_body, r.p])).toEqual([
    ['before the conversion', 'delivery_supplements_legacy'],
    ['after the conversion', 'delivery_supplements_legacy'],
  ]);
  expect(supplements[1].seq).toBeGreaterThan(seqBefore);
  // Nothing left to apply.
  expect(await migrate(orm, h.databaseUrl, { postDeploy: true })).toEqual([]);
});

it('a row written before the conversion dedups after it; new rows land in the legacy partition until B', async () => {
  const again = await send(t1, 'e1');
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ deliveryId: ids.e1, fireCount: 2, deduped: true });
  expect((await send(t1, 'e4')).status).toBe(202);
  expect(await partitionOf(ids.e4!)).toBe('deliveries_legacy');
  // Triage of rows in the legacy partition, through the partitioned table: the counters follow.
  const agent = await newAgent(h, undefined, t1.user);
  const [row] = await q(`select id from notifications where delivery_id = $1`, [ids.e1]);
  expect(await toolOk(h, agent.token, 'mark_notifications_done', { notificationIds: [row.id, plainNotificationId] })).toEqual({ updatedCount: 2 });
  await expectCountersExact(t1.user.userId);
  // Next month lies in the legacy partition: readiness is satisfied.
  expect(await missingNextMonth(orm.em.fork(), h.clock.now())).toEqual([]);
  expect((await http(h, 'GET', '/api/v1/ready')).status).toBe(200);
  // The delivery read back through the partitioned table.
  const read = await http(h, 'GET', `/api/v1/events/${ids.e1}`, { token: t1.token });
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ deliveryId: ids.e1, fireCount: 2 });
});

it('after B: new rows go to the monthly partition; an event fired before B and again after it is one delivery', async () => {
  h.clock.advance(bound.getTime() + 3_600_000 - h.clock.now().getTime());
  expect((await send(t2, 'e5')).status).toBe(202);
  expect(await partitionOf(ids.e5!)).toBe(partitionName('deliveries', bound));
  expect(await inboxPartitionOf(ids.e5!)).toBe(partitionName('notifications', bound));
  expect((await supplement(t2, ids.e5!, 'in B')).status).toBe(201);
  expect((await q(`select tableoid::regclass::text as p from delivery_supplements where delivery_id = $1`, [ids.e5]))[0].p).toBe(
    partitionName('delivery_supplements', bound),
  );
  const across = await send(t1, 'e4');
  expect(across.status).toBe(200);
  expect(across.body).toMatchObject({ deliveryId: ids.e4, fireCount: 2, deduped: true });
  // Every inbox row carries its delivery's time, so the inbox finds each delivery in its own
  // partition: list_inbox shows the event fields of rows in the legacy partition and in B's month.
  expect((await q(`select count(*)::int as n from notifications n join deliveries d on d.id = n.delivery_id where d.created_at <> n.created_at`))[0].n).toBe(0);
  const agent = await newAgent(h, undefined, t1.user);
  const inbox = await toolOk(h, agent.token, 'list_inbox', { view: 'all' });
  const byDelivery = new Map((inbox.items as Array<{ deliveryId?: string; fireCount?: number; eventType?: string }>).map((i) => [i.deliveryId, i]));
  expect(byDelivery.get(ids.e4)).toMatchObject({ fireCount: 2, eventType: 'personal.build.failed' });
  expect(byDelivery.get(ids.e1)).toMatchObject({ fireCount: 2, eventType: 'personal.build.failed' });
  // The maintenance job keeps two months ahead of B now.
  const created = await ensurePartitionsAhead(orm.em.fork(), h.clock.now(), 2);
  expect(created.map((c) => c.partition)).toContain(partitionName('deliveries', addMonths(bound, 2)));
});

it('retention drops the expired months (the legacy partition too) with their keys and inbox rows; the counters stay exact', async () => {
  // A delivery in the month after B's, which is kept.
  h.clock.advance(addMonths(bound, 1).getTime() + 3_600_000 - h.clock.now().getTime());
  expect((await send(t1, 'e6')).status).toBe(202);
  expect(await partitionOf(ids.e6!)).toBe(partitionName('deliveries', addMonths(bound, 1)));

  // 91 days after B's month ended: B's month and the legacy partition are past DELIVERY_RETENTION_DAYS (90).
  h.clock.advance(addMonths(bound, 1).getTime() + 91 * 86_400_000 - h.clock.now().getTime());
  const em = orm.em.fork();
  const expired = await expiredPartitions(em, h.clock.now(), { audit: 400, delivery: 90 });
  expect(expired.map((p) => [p.partition, p.from, p.to])).toEqual(
    ['deliveries', 'notifications', 'delivery_supplements'].flatMap((table) => [
      [partitionName(table, bound), bound.toISOString(), addMonths(bound, 1).toISOString()],
      [`${table}_legacy`, '-infinity', bound.toISOString()],
    ]),
  );
  const gone = [ids.e1, ids.e2, ids.e3, ids.e4, ids.e5];
  expect((await q(`select count(*)::int as n from notifications where delivery_id = any($1)`, [gone]))[0].n).toBe(5);
  await dropExpiredPartitions(em, expired);

  for (const table of ['deliveries', 'notifications', 'delivery_supplements']) {
    expect((await q(`select to_regclass($1) as r`, [`${table}_legacy`]))[0].r).toBeNull();
    expect((await q(`select to_regclass($1) as r`, [partitionName(table, bound)]))[0].r).toBeNull();
  }
  // The inbox row without a delivery went with its month; supplements went with their deliveries.
  expect((await q(`select count(*)::int as n from notifications where id = $1`, [plainNotificationId]))[0].n).toBe(0);
  expect((await q(`select count(*)::int as n from delivery_supplements where delivery_id = any($1)`, [gone]))[0].n).toBe(0);
  expect((await q(`select count(*)::int as n from deliveries where id = any($1)`, [gone]))[0].n).toBe(0);
  expect((await q(`select count(*)::int as n from delivery_keys where delivery_id = any($1)`, [gone]))[0].n).toBe(0);
  expect((await q(`select count(*)::int as n from notifications where delivery_id = any($1)`, [gone]))[0].n).toBe(0);
  // The kept month keeps its delivery, key and inbox row.
  expect((await q(`select count(*)::int as n from delivery_keys where delivery_id = $1`, [ids.e6]))[0].n).toBe(1);
  expect((await q(`select count(*)::int as n from notifications where delivery_id = $1`, [ids.e6]))[0].n).toBe(1);
  expect(await inboxPartitionOf(ids.e6!)).toBe(partitionName('notifications', addMonths(bound, 1)));
  await expectCountersExact(t1.user.userId);
  await expectCountersExact(t2.user.userId);
  // Nothing is left to drop; a second run changes nothing.
  expect(await expiredPartitions(em, h.clock.now(), { audit: 400, delivery: 90 })).toEqual([]);

  // An expired event_id fired again is a first arrival: a new delivery.
  await ensurePartitionsAhead(orm.em.fork(), h.clock.now(), 2);
  const refired = await send(t1, 'e1');
  expect(refired.status).toBe(202);
  expect(refired.body).toMatchObject({ fireCount: 1, deduped: false });
  await expectCountersExact(t1.user.userId);
});
