// Embedded mode (PGlite, one connection): the same outbox, and pg-boss runs on the PGlite
// instance through its `fromPglite` adapter (backend `pglite`); quiet hours and their summary.
import { createClient } from '@connectrpc/connect';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ChatStyle, NotificationSettingsService } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { quietSummaryTask } from '../../../src/domain/nudges/send-quiet-summaries.js';
import { bearer, closeSessions, transportFor } from '../../helpers/connect.js';
import { event, newPersonalToken, operator, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { browserSubscription, startReceiver, until, type Receiver } from './receiver.js';

let h: Harness;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startHarness({
    mode: 'embedded',
    env: {
      NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1',
      PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1',
      NUDGE_RELAY_INTERVAL_MS: '50',
      NUDGE_RETRY_LIMIT: '1',
      NUDGE_RETRY_DELAY_S: '1',
    },
  });
});
afterAll(async () => {
  closeSessions();
  await h?.close();
  await rx?.close();
});

it('embedded: a new event nudges push and chat once; a failing receiver ends dead', async () => {
  const t = await newPersonalToken(h);
  const a = await operator<{ token: string }>(h, 'agent_tokens.create', { email: t.user.email });
  const c = createClient(NotificationSettingsService, transportFor(h, 'connect', [bearer(a.token)]));
  const b = browserSubscription(`${rx.url}/push/emb`);
  await c.setChatDestination({ url: `${rx.url}/chat/emb`, style: ChatStyle.SLACK });
  await c.registerPushSubscription({ endpoint: b.endpoint, p256dh: b.p256dh, auth: b.auth });

  const r = await publish(h, t.token, event(h, { severity: 'warn', title: 'Embedded nudge', markdown_body: 'body' }));
  expect(r.body).toMatchObject({ pushed: true, degraded: false });
  await until('both hits', () => rx.hitsFor('/chat/emb').length === 1 && rx.hitsFor('/push/emb').length === 1);
  expect(b.decrypt(rx.hitsFor('/push/emb')[0]!.body)).toMatchObject({ title: 'Embedded nudge', severity: 'warn' });
  const repeat = await publish(
    h,
    t.token,
    event(h, {
      event_id: (await h.svc.deps.orm.em.fork().getConnection().execute(`select event_id from deliveries where id = ?`, [r.body.deliveryId]))[0].event_id,
    }),
  );
  expect(repeat.body.pushed).toBe(false);

  rx.behave('/chat/emb', { status: 503 });
  const failing = await publish(h, t.token, event(h, { severity: 'critical' }));
  await until('dead', async () => ((await h.svc.deps.orm.em.fork().getConnection().execute(`select 1 from nudge_failures`)) as unknown[]).length === 1, 20_000);
  expect(rx.hitsFor('/chat/emb')).toHaveLength(3); // 1 ok + 2 attempts of the failing one
  expect((await c.listFailedNudges({})).items[0]).toMatchObject({ deliveryId: failing.body.deliveryId, channel: 'chat', attempts: 2 });
});

it('embedded: quiet hours hold a warn nudge (the zone is known to PGlite too); clearing them sends one summary', async () => {
  const t = await newPersonalToken(h);
  const a = await operator<{ token: string }>(h, 'agent_tokens.create', { email: t.user.email });
  const c = createClient(NotificationSettingsService, transportFor(h, 'connect', [bearer(a.token)]));
  await c.setChatDestination({ url: `${rx.url}/chat/emb-quiet`, style: ChatStyle.SLACK });
  const now = h.clock.now().getTime();
  const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
  const set = await c.setPreferences({ quietHours: { start: hhmm(now - 3_600_000), end: hhmm(now + 3_600_000), timeZone: 'etc/utc', days: [] } });
  expect(set.preferences?.quietHours?.timeZone).toBe('Etc/UTC');
  expect((await publish(h, t.token, event(h, { severity: 'warn' }))).body.pushed).toBe(false);
  await c.setPreferences({ clearQuietHours: true });
  // This run, or the service's own poller just before it.
  expect((await quietSummaryTask.run(h.svc.deps, h.clock.now())).processed).toBeLessThanOrEqual(1);
  const hit = await until('the summary', () => rx.hitsFor('/chat/emb-quiet')[0]);
  expect(JSON.parse(hit.body.toString()).text).toContain('1 arrived while quiet: 1 warn');
});
