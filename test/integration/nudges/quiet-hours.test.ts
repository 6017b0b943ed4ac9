// Quiet hours (README "Nudges"; docs/contract.md "Quiet hours and thresholds") against real
// PostgreSQL, Redis and local chat / push receivers: nudges below critical are held back during
// quiet hours (the inbox records them, `pushed` is false), critical goes through, and ONE summary
// nudge per user follows once the quiet hours are over, also when two runs of the summary task
// race. The SQL rule of the publish statement agrees with quiet-hours.rules.ts. No sleeping for a
// time rule: the harness clock moves, and the task runs directly.
import { Code, createClient, type Client } from '@connectrpc/connect';
import { DateTime } from 'luxon';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatStyle, NotificationSettingsService } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { InboxService } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { quietAtSql } from '../../../src/domain/nudges/nudges.repository.js';
import { isQuietAt, type QuietHours } from '../../../src/domain/nudges/quiet-hours.rules.js';
import { quietSummaryTask } from '../../../src/domain/nudges/send-quiet-summaries.js';
import { NUDGE_LIMITS } from '../../../src/domain/nudges/nudges.limits.js';
import { wakeSnoozedTask } from '../../../src/domain/inbox/wake-snoozed-notifications.js';
import { bearer, closeSessions, fails, transportFor, violations } from '../../helpers/connect.js';
import { event, newPersonalToken, newUser, operator, publish, startHarness, type Harness, type TestUser } from '../../helpers/harness.js';
import { browserSubscription, startReceiver, until, type Receiver } from './receiver.js';

let h: Harness;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startHarness({
    env: { NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1', PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1', NUDGE_RELAY_INTERVAL_MS: '50' },
  });
});
afterAll(async () => {
  closeSessions();
  await h?.close();
  await rx?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;
const GRACE_MS = NUDGE_LIMITS.quietSummaryGraceSeconds * 1000;
let seq = 0;

interface Person {
  user: TestUser;
  inbound: string;
  inboundId: string;
  agentToken: string;
  settings: Client<typeof NotificationSettingsService>;
  chatPath: string;
  pushPath: string;
  browser: ReturnType<typeof browserSubscription>;
}

/** A user with a personal token, a settings client on an agent token, a chat destination and one browser subscription. */
async function person(): Promise<Person> {
  const user = await newUser(h);
  const t = await newPersonalToken(h, { user });
  const a = await operator<{ token: string }>(h, 'agent_tokens.create', { email: user.email, scopes: ['read:inbox', 'write:inbox'] });
  const settings = createClient(NotificationSettingsService, transportFor(h, 'connect', [bearer(a.token)]));
  const tag = `q${seq++}-${user.userId.slice(0, 8)}`;
  const p: Person = {
    user,
    inbound: t.token,
    inboundId: t.tokenId,
    agentToken: a.token,
    settings,
    chatPath: `/chat/${tag}`,
    pushPath: `/push/${tag}`,
    browser: browserSubscription(`${rx.url}/push/${tag}`),
  };
  await settings.setChatDestination({ url: `${rx.url}${p.chatPath}`, style: ChatStyle.SLACK });
  await settings.registerPushSubscription({ endpoint: p.browser.endpoint, p256dh: p.browser.p256dh, auth: p.browser.auth });
  return p;
}

/** A window from `before` minutes ago to `after` minutes ahead of the harness clock, on the wall clock of `zone`. */
function windowAroundNow(zone: string, before: number, after: number): { start: string; end: string; timeZone: string; days: number[] } {
  const local = DateTime.fromJSDate(h.clock.now(), { zone });
  return { start: local.minus({ minutes: before }).toFormat('HH:mm'), end: local.plus({ minutes: after }).toFormat('HH:mm'), timeZone: zone, days: [] };
}

const heldRows = async (userId: string) => sql('select delivery_id, severity from nudge_held where user_id = ? order by held_at', [userId]);
const outboxRows = async (deliveryId: string) => Number((await sql('select count(*)::int as n from nudge_outbox where delivery_id = ?', [deliveryId]))[0].n);
/**
 * Runs the summary task until the user's held nudges are summed up (this process's own poller,
 * which reads the same clock, may be the run that takes them).
 */
const summedUp = (userId: string) =>
  until('the held nudges summed up', async () => {
    await quietSummaryTask.run(h.svc.deps, h.clock.now());
    return (await heldRows(userId)).length === 0;
  });
const summaryHits = (prefix: string) => rx.hitsFor(prefix).filter((x) => String(x.headers['idempotency-key']).endsWith(':summary'));

describe('nudges during quiet hours', () => {
  it('below critical is held back (pushed false, nothing sent, the inbox records it); critical goes through; one summary after', async () => {
    const p = await person();
    // 22:00-07:00 style: a window around now in Tokyo, ending 30 minutes from now.
    const quiet = windowAroundNow('Asia/Tokyo', 60, 30);
    // The window's end is a whole minute (HH:MM): the first instant that is no longer quiet.
    const quietEnd = DateTime.fromJSDate(h.clock.now()).plus({ minutes: 30 }).startOf('minute').toMillis();
    const set = await p.settings.setPreferences({ quietHours: quiet });
    expect(set.preferences?.quietHours).toMatchObject({ start: quiet.start, end: quiet.end, timeZone: 'Asia/Tokyo', days: [] });

    const warn = await publish(h, p.inbound, event(h, { severity: 'warn', title: 'Quiet warn' }));
    expect(warn.status, warn.text).toBe(202);
    expect(warn.body).toMatchObject({ pushed: false, degraded: false, deduped: false });
    const warn2 = await publish(h, p.inbound, event(h, { severity: 'warn', title: 'Quiet warn 2' }));
    expect(warn2.body.pushed).toBe(false);
    // info does not nudge by default: nothing to hold either.
    const info = await publish(h, p.inbound, event(h, { severity: 'info', title: 'Quiet info' }));
    expect(info.body.pushed).toBe(false);
    const critical = await publish(h, p.inbound, event(h, { severity: 'critical', title: 'Disk full' }));
    expect(critical.body.pushed).toBe(true);

    // The critical one is sent at once, on both channels; the warn ones are not.
    await until('critical chat', () => rx.hitsFor(p.chatPath).length === 1);
    await until('critical push', () => rx.hitsFor(p.pushPath).length === 1);
    expect(JSON.parse(rx.hitsFor(p.chatPath)[0]!.body.toString()).text).toContain('[CRITICAL] Disk full');
    expect(await outboxRows(warn.body.deliveryId)).toBe(0);
    expect((await heldRows(p.user.userId)).map((r) => [r.delivery_id, r.severity])).toEqual([
      [warn.body.deliveryId, 'warn'],
      [warn2.body.deliveryId, 'warn'],
    ]);
    // The inbox records every one of them.
    const inbox = createClient(InboxService, transportFor(h, 'connect', [bearer(p.agentToken)]));
    expect((await inbox.listInbox({})).items.map((i) => i.title).sort()).toEqual(['Disk full', 'Quiet info', 'Quiet warn', 'Quiet warn 2']);

    // Still quiet, and just after the end (inside the grace): no summary.
    expect((await quietSummaryTask.run(h.svc.deps, h.clock.now())).processed).toBe(0);
    h.clock.advance(quietEnd + 10_000 - h.clock.now().getTime());
    expect((await quietSummaryTask.run(h.svc.deps, h.clock.now())).processed).toBe(0);
    // After the grace. While another run holds the user (its lock on their preferences row), a run
    // skips them and leaves the held rows alone.
    const other = new pg.Client({ connectionString: h.databaseUrl });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select 1 from nudge_preferences where user_id = $1 for no key update', [p.user.userId]);
      h.clock.advance(GRACE_MS);
      expect((await quietSummaryTask.run(h.svc.deps, h.clock.now())).processed).toBe(0);
      expect(await heldRows(p.user.userId)).toHaveLength(2);
      await other.query('rollback');
    } finally {
      await other.end();
    }
    // Two processes' runs at once (and this process's own poller, which may come first): one summary.
    const runs = await Promise.all([quietSummaryTask.run(h.svc.deps, h.clock.now()), quietSummaryTask.run(h.svc.deps, h.clock.now())]);
    expect(runs[0]!.processed + runs[1]!.processed).toBeLessThanOrEqual(1);
    await until('the held rows summed up', async () => (await heldRows(p.user.userId)).length === 0);

    const chat = await until('summary chat', () => summaryHits(p.chatPath)[0]);
    const push = await until('summary push', () => summaryHits(p.pushPath)[0]);
    expect(JSON.parse(chat.body.toString()).text).toContain('[WARN] 2 arrived while quiet: 2 warn');
    const summaryId = String(chat.headers['idempotency-key']).split(':')[0]!;
    expect(chat.headers['idempotency-key']).toBe(`${summaryId}:chat:summary`);
    expect(push.headers['idempotency-key']).toBe(`${summaryId}:push:summary`);
    expect(p.browser.decrypt(push.body)).toEqual({
      title: '2 arrived while quiet: 2 warn',
      severity: 'warn',
      url: `${h.svc.deps.config.publicBaseUrl}/inbox`,
      tag: summaryId,
    });
    await until('an empty outbox', async () => (await sql('select count(*)::int as n from nudge_outbox where user_id = ?', [p.user.userId]))[0].n === 0);
    expect((await quietSummaryTask.run(h.svc.deps, h.clock.now())).processed).toBe(0);
    expect(summaryHits(p.chatPath)).toHaveLength(1);
    expect(summaryHits(p.pushPath)).toHaveLength(1);

    // After the quiet hours, warn nudges again.
    const after = await publish(h, p.inbound, event(h, { severity: 'warn', title: 'Awake' }));
    expect(after.body.pushed).toBe(true);
    await until('the warn chat', () => rx.hitsFor(p.chatPath).some((x) => JSON.parse(x.body.toString()).text.includes('Awake')));
  });

  it('a summary counts every held severity; clearing the quiet hours sends it at the next run; a day not in `days` is not quiet', async () => {
    const p = await person();
    await p.settings.setPreferences({ updatePushSeverities: true, pushSeverities: ['critical', 'warn', 'info'] });
    const quiet = windowAroundNow('America/New_York', 30, 30);
    await p.settings.setPreferences({ quietHours: quiet });
    for (const severity of ['info', 'warn', 'info', 'info']) expect((await publish(h, p.inbound, event(h, { severity }))).body.pushed).toBe(false);
    const cleared = await p.settings.setPreferences({ clearQuietHours: true });
    expect(cleared.preferences?.quietHours).toBeUndefined();
    await summedUp(p.user.userId);
    const chat = await until('summary chat', () => summaryHits(p.chatPath)[0]);
    expect(JSON.parse(chat.body.toString()).text).toContain('4 arrived while quiet: 1 warn, 3 info');

    // The same window on every day but the one it started on now (in that zone; the day before
    // when now is after midnight in a window that spans it): not quiet.
    const local = DateTime.fromJSDate(h.clock.now(), { zone: 'America/New_York' });
    const startedYesterday = quiet.start > quiet.end && local.toFormat('HH:mm') < quiet.end;
    const startDay = startedYesterday ? (local.weekday === 1 ? 7 : local.weekday - 1) : local.weekday;
    await p.settings.setPreferences({ quietHours: { ...quiet, days: [1, 2, 3, 4, 5, 6, 7].filter((d) => d !== startDay) } });
    expect((await publish(h, p.inbound, event(h, { severity: 'warn' }))).body.pushed).toBe(true);
    await p.settings.setPreferences({ quietHours: { ...quiet, days: [startDay] } });
    expect((await publish(h, p.inbound, event(h, { severity: 'warn' }))).body.pushed).toBe(false);
  });

  it('a snooze that comes back during quiet hours is held too, and summed up after', async () => {
    const p = await person();
    const r = await publish(h, p.inbound, event(h, { severity: 'warn', title: 'Later' }));
    expect(r.body.pushed).toBe(true);
    const inbox = createClient(InboxService, transportFor(h, 'connect', [bearer(p.agentToken)]));
    const [item] = (await inbox.listInbox({})).items;
    await inbox.snooze({ notificationId: item!.notificationId, preset: 'one_hour', timeZone: 'UTC' });
    // Quiet hours from 30 minutes to 2 hours from now (in UTC): the snooze ends inside them.
    const local = DateTime.fromJSDate(h.clock.now(), { zone: 'UTC' });
    await p.settings.setPreferences({
      quietHours: { start: local.plus({ minutes: 30 }).toFormat('HH:mm'), end: local.plus({ minutes: 120 }).toFormat('HH:mm'), timeZone: 'UTC', days: [] },
    });
    h.clock.advance(3_600_000 + 1_000);
    await wakeSnoozedTask.run(h.svc.deps, h.clock.now());
    expect((await sql('select state from notifications where id = ?', [item!.notificationId]))[0].state).toBe('inbox');
    expect((await heldRows(p.user.userId)).map((x) => x.delivery_id)).toEqual([r.body.deliveryId]);
    expect(await outboxRows(r.body.deliveryId)).toBe(0);
    h.clock.advance(3_600_000 + GRACE_MS);
    await summedUp(p.user.userId);
    const chat = await until('summary chat', () => summaryHits(p.chatPath)[0]);
    expect(JSON.parse(chat.body.toString()).text).toContain('1 arrived while quiet: 1 warn');
    expect(rx.hitsFor(p.chatPath).filter((x) => String(x.headers['idempotency-key']).includes(':snooze:'))).toHaveLength(0);
  });
});

describe('SetPreferences: quiet hours and done on resolution', () => {
  it('reads back what was set; days sorted without duplicates; done_on_resolution defaults to false', async () => {
    const p = await person();
    const before = await p.settings.getPreferences({});
    expect(before.preferences?.quietHours).toBeUndefined();
    expect(before.preferences?.doneOnResolution).toBe(false);
    const set = await p.settings.setPreferences({
      quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin', days: [5, 1, 5, 3] },
      doneOnResolution: true,
    });
    expect(set.preferences).toMatchObject({ quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin', days: [1, 3, 5] }, doneOnResolution: true });
    // Fields not given keep their values.
    const again = await p.settings.setPreferences({ chatEnabled: false });
    expect(again.preferences).toMatchObject({ chatEnabled: false, quietHours: { start: '22:00' }, doneOnResolution: true });
  });

  it('bad HH:MM, an unknown zone and days out of range: invalid_argument naming every violation, nothing changed', async () => {
    const p = await person();
    await p.settings.setPreferences({ quietHours: { start: '21:00', end: '06:30', timeZone: 'UTC', days: [6, 7] } });
    const err = await fails(
      p.settings.setPreferences({ quietHours: { start: '24:00', end: '7:00', timeZone: 'Mars/Olympus_Mons', days: [0, 3, 8] }, doneOnResolution: true }),
    );
    expect(err.code).toBe(Code.InvalidArgument);
    expect(violations(err)).toEqual([
      'quiet_hours.days.0:too_small',
      'quiet_hours.days.2:too_big',
      'quiet_hours.end:invalid_format',
      'quiet_hours.start:invalid_format',
      'quiet_hours.time_zone:invalid_time_zone',
    ]);
    const both = await fails(p.settings.setPreferences({ quietHours: { start: '21:00', end: '06:30', timeZone: 'UTC', days: [] }, clearQuietHours: true }));
    expect(violations(both)).toEqual(['clear_quiet_hours:invalid']);
    const still = await p.settings.getPreferences({});
    expect(still.preferences).toMatchObject({ quietHours: { start: '21:00', end: '06:30', timeZone: 'UTC', days: [6, 7] }, doneOnResolution: false });
  });
});

describe('the publish statement decides quiet hours as quiet-hours.rules.ts does', () => {
  it('for windows in several zones, overnight and not, on some days, around DST changes', async () => {
    const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'Australia/Sydney', 'America/Sao_Paulo', 'Asia/Kolkata', 'UTC'];
    const windows: Array<[string, string]> = [
      ['22:00', '07:00'],
      ['09:00', '17:30'],
      ['00:00', '00:00'],
      ['13:15', '13:15'],
      ['02:30', '03:30'],
      ['23:59', '00:01'],
    ];
    const daySets = [[], [1, 2, 3, 4, 5], [6, 7], [1], [7]];
    // Around the 2027 DST changes of Europe, the US and Sydney, and some ordinary instants.
    const anchors = ['2027-03-28T01:00:00Z', '2027-03-14T07:00:00Z', '2027-04-04T16:00:00Z', '2026-10-25T01:00:00Z', '2026-12-02T12:00:00Z'];
    let rnd = 42;
    const next = () => (rnd = (rnd * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const cases: Array<{ q: QuietHours; at: Date }> = [];
    for (let i = 0; i < 400; i++) {
      const [start, end] = windows[Math.floor(next() * windows.length)]!;
      const q = { start, end, timeZone: zones[Math.floor(next() * zones.length)]!, days: daySets[Math.floor(next() * daySets.length)]! };
      const anchor = new Date(anchors[Math.floor(next() * anchors.length)]!).getTime();
      cases.push({ q, at: new Date(anchor + Math.floor(((next() - 0.5) * 2 * 36 * 3_600_000) / 60_000) * 60_000) });
    }
    const expr = quietAtSql('v.at', 'v');
    const values = cases.map(() => '(?::int, ?::timestamptz, ?::time, ?::time, ?::varchar, ?::smallint[])').join(', ');
    const params = cases.flatMap((c, i) => [i, c.at.toISOString(), c.q.start, c.q.end, c.q.timeZone, `{${c.q.days.join(',')}}`]);
    const rows = await sql(
      `select v.i, ${expr} as quiet from (values ${values}) as v (i, at, quiet_start, quiet_end, quiet_tz, quiet_days) order by v.i`,
      params,
    );
    const mismatches = cases.filter((c, i) => rows[i].quiet !== isQuietAt(c.q, c.at)).map((c) => ({ ...c.q, at: c.at.toISOString() }));
    expect(mismatches).toEqual([]);
    expect(rows.filter((r) => r.quiet).length).toBeGreaterThan(50);
  });
});
