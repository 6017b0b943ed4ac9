// Parked outbox rows (docs/migrations.md "Nudge outbox: parked rows") against real PostgreSQL,
// Redis and a local chat / push receiver. While a rolling upgrade runs, release 0.25.935 claims
// from the same `nudge_outbox` and works the same `nudges` pg-boss queue; it reads no `reason`.
// Rows of reason `snooze` and `summary` written by this release must be invisible to it (it would
// send a snooze as an arrival and settle a summary unsent), and this release must still send them,
// retry them and settle them. Node A (WORKER=off) writes the rows through this release's own
// statements and tasks, with the harness clock moved by hand; node B (the worker) sends them.
import { createClient, type Client } from '@connectrpc/connect';
import { DateTime } from 'luxon';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatStyle, NotificationSettingsService } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { InboxService } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { quietSummaryTask } from '../../../src/domain/nudges/send-quiet-summaries.js';
import { wakeSnoozedTask } from '../../../src/domain/inbox/wake-snoozed-notifications.js';
import { Migration20261201200000OutboxParked } from '../../../src/infra/db/migrations/Migration20261201200000OutboxParked.js';
import { bearer, closeSessions, transportFor } from '../../helpers/connect.js';
import { event, newPersonalToken, newUser, operator, publish, startHarness, type Harness, type TestUser } from '../../helpers/harness.js';
import { browserSubscription, startReceiver, until, type Receiver } from './receiver.js';

/**
 * The outbox claim of release 0.25.935 (the baseline in api/baseline/release.json), copied verbatim
 * from its NudgeQueue.dispatchOnce: `git show 6f1b415:src/infra/queue/nudge-queue.ts`.
 * $1 = batch size, $2 = lease seconds.
 */
const PREVIOUS_RELEASE_CLAIM = `update nudge_outbox o set lease_until = now() + make_interval(secs => $2), attempts = o.attempts + 1
         from (select ctid from nudge_outbox where lease_until is null or lease_until < now() limit $1 for update skip locked) s
        where o.ctid = s.ctid
        returning o.ctid::text as tid, o.id, o.delivery_id, o.user_id, o.channel, o.attempts`;

const ENV = { NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1', PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1', NUDGE_RELAY_INTERVAL_MS: '50', NUDGE_RETRY_DELAY_S: '1' };
let a: Harness;
let b: Harness | undefined;
let rx: Receiver;
let old: pg.Client;
beforeAll(async () => {
  rx = await startReceiver();
  a = await startHarness({ env: { ...ENV, WORKER: 'off' } });
  old = new pg.Client({ connectionString: a.databaseUrl });
  await old.connect();
});
afterAll(async () => {
  closeSessions();
  await old?.end();
  await b?.close();
  await a?.close();
  await rx?.close();
});

const sql = (q: string, params: unknown[] = []) => a.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

/** What the previous release's claim would take now (run, then rolled back: it changes nothing). */
async function previousReleaseClaims(): Promise<Array<{ id: string; user_id: string }>> {
  await old.query('begin');
  try {
    return (await old.query(PREVIOUS_RELEASE_CLAIM, [10_000, 30])).rows;
  } finally {
    await old.query('rollback');
  }
}

/** Node B: this release with its worker on, on node A's database. */
async function startWorkerNode(): Promise<Harness> {
  b ??= await startHarness({
    databaseUrl: a.databaseUrl,
    clock: a.clock,
    env: ENV,
  });
  return b;
}

let seq = 0;
interface Person {
  user: TestUser;
  inbound: string;
  agentToken: string;
  settings: Client<typeof NotificationSettingsService>;
  chatPath: string;
  pushPath: string;
}

/** A user with a personal token, a settings client, a chat destination and (unless `push: false`) one browser subscription. */
async function person(opts: { push?: boolean } = {}): Promise<Person> {
  const user = await newUser(a);
  const t = await newPersonalToken(a, { user });
  const ag = await operator<{ token: string }>(a, 'agent_tokens.create', { email: user.email, scopes: ['read:inbox', 'write:inbox'] });
  const settings = createClient(NotificationSettingsService, transportFor(a, 'connect', [bearer(ag.token)]));
  const tag = `p${seq++}-${user.userId.slice(0, 8)}`;
  const p = { user, inbound: t.token, agentToken: ag.token, settings, chatPath: `/chat/${tag}`, pushPath: `/push/${tag}` };
  await settings.setChatDestination({ url: `${rx.url}${p.chatPath}`, style: ChatStyle.SLACK });
  if (opts.push !== false) {
    const browser = browserSubscription(`${rx.url}${p.pushPath}`);
    await settings.registerPushSubscription({ endpoint: browser.endpoint, p256dh: browser.p256dh, auth: browser.auth });
  }
  return p;
}

/** Holds a warn nudge in quiet hours, then ends them: the summary task queues the user's summary nudge. */
async function queueSummary(p: Person): Promise<void> {
  const local = DateTime.fromJSDate(a.clock.now(), { zone: 'UTC' });
  await p.settings.setPreferences({
    quietHours: { start: local.minus({ minutes: 30 }).toFormat('HH:mm'), end: local.plus({ minutes: 30 }).toFormat('HH:mm'), timeZone: 'UTC', days: [] },
  });
  expect((await publish(a, p.inbound, event(a, { severity: 'warn', title: 'Held' }))).body.pushed).toBe(false);
  await p.settings.setPreferences({ clearQuietHours: true });
  expect((await quietSummaryTask.run(a.svc.deps, a.clock.now())).processed).toBe(1);
}

const outboxOf = (userId: string) =>
  sql(
    `select id, reason, lease_until is not distinct from 'infinity' as parked, parked_lease_until, attempts from nudge_outbox where user_id = ? order by reason, channel`,
    [userId],
  );
const keysOf = (path: string) => rx.hitsFor(path).map((x) => String(x.headers['idempotency-key']));

describe('Migration20261201200000OutboxParked', () => {
  it('parks the snooze and summary rows queued before it; a lease taken on one moves to parked_lease_until', async () => {
    const users = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    // Rows as the release before it wrote them: nothing parked.
    await sql(
      `insert into nudge_outbox (id, delivery_id, user_id, channel, created_at, reason, lease_until, attempts) values
         (gen_random_uuid(), gen_random_uuid(), ?, 'chat', now(), 'event', null, 0),
         (gen_random_uuid(), gen_random_uuid(), ?, 'chat', now(), 'snooze', null, 0),
         (gen_random_uuid(), gen_random_uuid(), ?, 'chat', now(), 'summary', now() + interval '30 seconds', 1),
         (gen_random_uuid(), gen_random_uuid(), ?, 'chat', now(), 'event', now() + interval '30 seconds', 1)`,
      users,
    );
    const leased = (await sql(`select lease_until from nudge_outbox where user_id = ?`, [users[2]]))[0].lease_until;
    const m = new Migration20261201200000OutboxParked(a.svc.deps.orm.em.getDriver() as never, a.svc.deps.orm.config);
    await m.up();
    const convert = m
      .getQueries()
      .map(String)
      .find((q) => q.startsWith('update'))!;
    await sql(convert);
    const rows = await sql(
      `select user_id, lease_until is not distinct from 'infinity' as parked, parked_lease_until from nudge_outbox where user_id = any(?::uuid[])`,
      [`{${users.join(',')}}`],
    );
    const byUser = new Map(rows.map((r) => [r.user_id, r]));
    expect(byUser.get(users[0])).toMatchObject({ parked: false, parked_lease_until: null });
    expect(byUser.get(users[1])).toMatchObject({ parked: true, parked_lease_until: null });
    expect(byUser.get(users[2])).toMatchObject({ parked: true, parked_lease_until: leased });
    expect(byUser.get(users[3])).toMatchObject({ parked: false, parked_lease_until: null });
    expect((await previousReleaseClaims()).map((r) => r.user_id)).toEqual([users[0]]);
    await sql(`delete from nudge_outbox where user_id = any(?::uuid[])`, [`{${users.join(',')}}`]);
  });
});

describe('rows of reason snooze and summary, while the previous release runs on the same outbox', () => {
  it("the previous release's claim selects only the event rows; this release sends all three kinds, each once", async () => {
    const p = await person();
    await queueSummary(p);
    // An arrival, snoozed for an hour and woken by the wake job: its snooze nudge.
    const r = await publish(a, p.inbound, event(a, { severity: 'warn', title: 'Later' }));
    expect(r.body.pushed).toBe(true);
    const inbox = createClient(InboxService, transportFor(a, 'connect', [bearer(p.agentToken)]));
    const item = (await inbox.listInbox({})).items.find((i) => i.title === 'Later')!;
    await inbox.snooze({ notificationId: item.notificationId, preset: 'one_hour', timeZone: 'UTC' });
    a.clock.advance(3_600_000 + 1_000);
    expect((await wakeSnoozedTask.run(a.svc.deps, a.clock.now())).processed).toBe(1);

    const rows = await outboxOf(p.user.userId);
    // One row per channel (chat, push) and reason; the parked ones at lease_until = infinity, unclaimed.
    expect(rows.map((x) => [x.reason, x.parked, x.parked_lease_until, x.attempts])).toEqual([
      ['event', false, null, 0],
      ['event', false, null, 0],
      ['snooze', true, null, 0],
      ['snooze', true, null, 0],
      ['summary', true, null, 0],
      ['summary', true, null, 0],
    ]);
    const eventIds = rows.filter((x) => x.reason === 'event').map((x) => x.id);
    expect((await previousReleaseClaims()).map((x) => x.id).sort()).toEqual([...eventIds].sort());
    // Nor once a lease of this release on a parked row has run out (its node died mid-send).
    await sql(`update nudge_outbox set parked_lease_until = now() - interval '1 minute', attempts = 1 where user_id = ? and reason = 'summary'`, [
      p.user.userId,
    ]);
    expect((await previousReleaseClaims()).map((x) => x.id).sort()).toEqual([...eventIds].sort());

    // This release's worker sends every one of them, and empties the outbox.
    await startWorkerNode();
    await until('an empty outbox', async () => (await outboxOf(p.user.userId)).length === 0);
    for (const path of [p.chatPath, p.pushPath]) {
      const keys = await until('three nudges', () => (keysOf(path).length >= 3 ? keysOf(path) : undefined));
      const channel = path === p.chatPath ? 'chat' : 'push';
      expect(keys.filter((k) => k === `${r.body.deliveryId}:${channel}`)).toHaveLength(1);
      expect(keys.filter((k) => k.startsWith(`${r.body.deliveryId}:${channel}:snooze:`))).toHaveLength(1);
      expect(keys.filter((k) => k.endsWith(`:${channel}:summary`))).toHaveLength(1);
    }
    const texts = rx.hitsFor(p.chatPath).map((x) => JSON.parse(x.body.toString()).text as string);
    expect(texts.some((t) => t.includes('Back from snooze: Later'))).toBe(true);
    expect(texts.some((t) => t.includes('1 arrived while quiet: 1 warn'))).toBe(true);
    // Settled: nothing left queued for either release (no retry job anywhere).
    const summaryId = keysOf(p.chatPath)
      .find((k) => k.endsWith(':summary'))!
      .split(':')[0]!;
    expect(await sql(`select name from pgboss.job where data->>'deliveryId' in (?, ?)`, [summaryId, r.body.deliveryId])).toEqual([]);
  });

  it('a failed send of a summary is retried by this release and stays invisible to the previous release between attempts', async () => {
    const node = await startWorkerNode();
    const p = await person({ push: false });
    // The first attempt answers 500 after a while (the row is claimed meanwhile); later ones 201.
    rx.behave(p.chatPath, { status: 500, delayMs: 1_500 });
    await queueSummary(p);
    await until('the first attempt', () => rx.hitsFor(p.chatPath).length === 1);
    rx.behave(p.chatPath, { status: 201 });

    // Claimed by this release: its own lease, lease_until still infinity.
    const [claimed] = await outboxOf(p.user.userId);
    expect(claimed).toMatchObject({ reason: 'summary', parked: true, attempts: 1 });
    expect(claimed.parked_lease_until).not.toBeNull();
    expect((await previousReleaseClaims()).filter((x) => x.user_id === p.user.userId)).toEqual([]);

    // Failed: the row is settled and its retry queued in `nudges-parked`, never in the `nudges`
    // queue the previous release works.
    await until('settled', async () => (await outboxOf(p.user.userId)).length === 0);
    const summaryId = String(rx.hitsFor(p.chatPath)[0]!.headers['idempotency-key']).split(':')[0]!;
    const jobs = await sql(`select id, name, data->>'reason' as reason from pgboss.job where data->>'deliveryId' = ?`, [summaryId]);
    expect(jobs).toEqual([{ id: claimed.id, name: 'nudges-parked', reason: 'summary' }]);
    expect((await previousReleaseClaims()).filter((x) => x.user_id === p.user.userId)).toEqual([]);

    // The retry sends it (same idempotency id), and the job completes.
    await until('the retry', () => rx.hitsFor(p.chatPath).length === 2, 20_000);
    expect(keysOf(p.chatPath)).toEqual([`${summaryId}:chat:summary`, `${summaryId}:chat:summary`]);
    expect(JSON.parse(rx.hitsFor(p.chatPath)[1]!.body.toString()).text).toContain('1 arrived while quiet: 1 warn');
    await until('job completed', async () => (await sql(`select state from pgboss.job where id = ?`, [claimed.id]))[0]?.state === 'completed');
    expect((await node.svc.nudges!.counts()).outbox).toBe(0);
  }, 40_000);
});
