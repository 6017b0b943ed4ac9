// Nudges (SPEC "Side effects of a new delivery", "Delivery external status", Limits): push and chat
// for new deliveries through the outbox and the pg-boss worker, against real PostgreSQL, Redis and
// local HTTP receivers on 127.0.0.1 (allowed through NUDGE_EGRESS_ALLOW_HOSTS, and as a push service
// through PUSH_ENDPOINT_ALLOW_HOSTS; both empty by default).
// No test sleeps for a time rule: the day rolls over through the harness clock, and the worker's
// progress is polled with a deadline.
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatStyle, NotificationSettingsService } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { bearer, closeSessions, transportFor } from '../../helpers/connect.js';
import { event, newPersonalToken, newUser, operator, publish, startHarness, type Harness, type TestUser } from '../../helpers/harness.js';
import { adminTools, claimedEmployee } from '../../helpers/tools.js';
import { http } from '../../helpers/harness.js';
import { browserSubscription, startReceiver, until, type Receiver } from './receiver.js';

let h: Harness;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startHarness({
    env: {
      NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1',
      PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1',
      NUDGE_RETRY_LIMIT: '2',
      NUDGE_RETRY_DELAY_S: '1',
      NUDGE_RELAY_INTERVAL_MS: '50',
      NUDGE_SEND_TIMEOUT_MS: '5000',
    },
  });
});
afterAll(async () => {
  closeSessions();
  await h?.close();
  await rx?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;
let seq = 0;

interface Person {
  user: TestUser;
  inbound: string;
  agent: Client<typeof NotificationSettingsService>;
  chatPath: string;
  pushPath: string;
  browser: ReturnType<typeof browserSubscription>;
}

/** A user with a personal token, an agent-token settings client, a chat destination and one browser subscription. */
async function person(opts: { chat?: boolean; push?: boolean; dailyLimit?: number; style?: ChatStyle } = {}): Promise<Person> {
  const user = await newUser(h);
  const t = await newPersonalToken(h, { user });
  // Self-service offers 50/200/500/1000; a claimed token may have 1-1000: set the row directly.
  if (opts.dailyLimit !== undefined) await sql(`update inbound_tokens set daily_limit = ? where id = ?`, [opts.dailyLimit, t.tokenId]);
  const a = await operator<{ token: string }>(h, 'agent_tokens.create', { email: user.email });
  const agent = createClient(NotificationSettingsService, transportFor(h, 'connect', [bearer(a.token)]));
  const tag = `u${seq++}-${user.userId.slice(0, 8)}`;
  const p: Person = {
    user,
    inbound: t.token,
    agent,
    chatPath: `/chat/${tag}`,
    pushPath: `/push/${tag}`,
    browser: browserSubscription(`${rx.url}/push/${tag}`),
  };
  if (opts.chat !== false) await agent.setChatDestination({ url: `${rx.url}${p.chatPath}`, style: opts.style ?? ChatStyle.SLACK });
  if (opts.push !== false) await agent.registerPushSubscription({ endpoint: p.browser.endpoint, p256dh: p.browser.p256dh, auth: p.browser.auth });
  return p;
}

const outboxRows = async (deliveryId: string) => Number((await sql(`select count(*)::int as n from nudge_outbox where delivery_id = ?`, [deliveryId]))[0].n);
const jobRows = async (deliveryId: string) =>
  Number((await sql(`select count(*)::int as n from pgboss.job where name = 'nudges' and data->>'deliveryId' = ?`, [deliveryId]))[0].n);
const inboxRows = async (deliveryId: string) => Number((await sql(`select count(*)::int as n from notifications where delivery_id = ?`, [deliveryId]))[0].n);

/** Nothing was queued for this delivery in the same commit: nothing can ever be sent for it. */
async function expectNoNudgeQueued(deliveryId: string) {
  expect(await outboxRows(deliveryId)).toBe(0);
  expect(await jobRows(deliveryId)).toBe(0);
}

const MARKDOWN = '## Secret details\n\nstack trace with customer data';

describe('a new delivery nudges once per channel', () => {
  it('sends one push and one chat message with title, severity and the inbox link, never the body', async () => {
    const p = await person();
    const r = await publish(h, p.inbound, event(h, { severity: 'critical', title: 'Disk full on db-1', summary: 'summary text', markdown_body: MARKDOWN }));
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ pushed: true, degraded: false, deduped: false });
    const deliveryId = r.body.deliveryId as string;

    const [chat] = await until('chat hit', () => rx.hitsFor(p.chatPath).length === 1 && rx.hitsFor(p.chatPath));
    const [push] = await until('push hit', () => rx.hitsFor(p.pushPath).length === 1 && rx.hitsFor(p.pushPath));
    const notificationId = (await sql(`select id from notifications where delivery_id = ?`, [deliveryId]))[0].id;
    const link = `${h.svc.deps.config.publicBaseUrl}/inbox/${notificationId}`;

    // Chat: Slack style, idempotency id = delivery + channel.
    expect(chat!.headers['idempotency-key']).toBe(`${deliveryId}:chat`);
    const chatBody = JSON.parse(chat!.body.toString('utf8'));
    expect(chatBody.text).toContain('[CRITICAL] Disk full on db-1');
    expect(chatBody.text).toContain(link);
    expect(chatBody.blocks).toHaveLength(1);
    expect(chat!.body.toString('utf8')).not.toContain('Secret details');
    expect(chat!.body.toString('utf8')).not.toContain('summary text');

    // Push: Web Push (aes128gcm, VAPID), decrypted as the browser would.
    expect(push!.headers['content-encoding']).toBe('aes128gcm');
    expect(push!.headers.authorization).toMatch(/^vapid t=.+, k=/);
    expect(push!.headers.urgency).toBe('high');
    expect(push!.headers.topic).toBe(deliveryId.replaceAll('-', ''));
    expect(push!.headers['idempotency-key']).toBe(`${deliveryId}:push`);
    const { publicKey } = await p.agent.getVapidPublicKey({});
    expect(push!.headers.authorization).toContain(`k=${publicKey}`);
    expect(p.browser.decrypt(push!.body)).toEqual({ title: 'Disk full on db-1', severity: 'critical', url: link, tag: deliveryId });

    // Sent on the first attempt: settled straight from the outbox, no retry job.
    await until('outbox row settled', async () => (await outboxRows(deliveryId)) === 0);
    expect(await jobRows(deliveryId)).toBe(0);
    expect(rx.hitsFor(p.chatPath)).toHaveLength(1);
    expect(rx.hitsFor(p.pushPath)).toHaveLength(1);
  });

  it('Feishu/Lark style: {msg_type: text, content: {text}}', async () => {
    const p = await person({ push: false, style: ChatStyle.FEISHU });
    const r = await publish(h, p.inbound, event(h, { severity: 'warn', title: 'Approval waiting', markdown_body: MARKDOWN }));
    expect(r.body.pushed).toBe(true);
    const [chat] = await until('chat hit', () => rx.hitsFor(p.chatPath).length === 1 && rx.hitsFor(p.chatPath));
    const body = JSON.parse(chat!.body.toString('utf8'));
    expect(body.msg_type).toBe('text');
    expect(body.content.text).toMatch(/^\[WARN\] Approval waiting\nhttp:\/\/.+\/inbox\/[0-9a-f-]{36}$/);
    expect(Object.keys(body).sort()).toEqual(['content', 'msg_type']);
  });

  it('a user with no channel is not nudged: pushed is false', async () => {
    const p = await person({ chat: false, push: false });
    const r = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(r.status).toBe(202);
    expect(r.body.pushed).toBe(false);
    await expectNoNudgeQueued(r.body.deliveryId);
  });
});

describe('bulk fan-out', () => {
  it('each new recipient row tells whether it was nudged (pushed) or over its limit (degraded)', async () => {
    const tools = await adminTools(h);
    const withChat = await claimedEmployee(h, tools);
    const a = await operator<{ token: string }>(h, 'agent_tokens.create', { email: withChat.user.email });
    const agent = createClient(NotificationSettingsService, transportFor(h, 'connect', [bearer(a.token)]));
    await agent.setChatDestination({ url: `${rx.url}/chat/bulk-${withChat.user.userId}`, style: ChatStyle.SLACK });
    const without = await claimedEmployee(h, tools);
    const limited = await claimedEmployee(h, tools);
    await sql(`update inbound_tokens set daily_limit = 1 where id = ?`, [limited.tokenId]);
    await publish(h, limited.token, event(h, { event_type: `${tools.prefix}warm.up` }));
    const ev = event(h, { event_type: `${tools.prefix}alert.fired`, severity: 'critical' });
    const recipients = [withChat, without, limited].map((c) => ({ type: 'email', email: c.user.email }));
    const r = await http(h, 'POST', '/api/v1/events/bulk', { token: tools.token, body: { event: ev, recipients } });
    expect(r.status, r.text).toBe(202);
    expect(r.body.results.map((x: any) => [x.pushed, x.degraded ?? false])).toEqual([
      [true, false],
      [false, false],
      [false, true],
    ]);
    await until('bulk chat hit', () => rx.hitsFor(`/chat/bulk-${withChat.user.userId}`).length === 1);
    const again = await http(h, 'POST', '/api/v1/events/bulk', { token: tools.token, body: { event: ev, recipients } });
    expect(again.body.results.every((x: any) => x.deduped === true && x.pushed === false)).toBe(true);
  });
});

describe('what sends nothing', () => {
  it('a repeat arrival: 200, pushed false, nothing queued', async () => {
    const p = await person();
    const ev = event(h, { severity: 'critical' });
    const first = await publish(h, p.inbound, ev);
    expect(first.body.pushed).toBe(true);
    await until(
      'both nudges sent and settled',
      async () => rx.hitsFor(p.chatPath).length + rx.hitsFor(p.pushPath).length === 2 && (await outboxRows(first.body.deliveryId)) === 0,
    );
    const again = await publish(h, p.inbound, { ...ev, title: 'Changed title' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ pushed: false, deduped: true, fireCount: 2 });
    // The repeat queued nothing: no outbox row, and no job (the first arrival's nudges succeeded at once).
    expect(await outboxRows(first.body.deliveryId)).toBe(0);
    expect(await jobRows(first.body.deliveryId)).toBe(0);
  });

  it('a terminal external_status (resolved, approved, rejected, withdrawn): inbox only', async () => {
    const p = await person();
    for (const status of ['resolved', 'approved', 'rejected', 'withdrawn']) {
      const r = await publish(h, p.inbound, event(h, { severity: 'critical', external_status: status }));
      expect(r.status).toBe(202);
      expect(r.body.pushed).toBe(false);
      expect(await inboxRows(r.body.deliveryId)).toBe(1);
      await expectNoNudgeQueued(r.body.deliveryId);
    }
    // firing is not terminal.
    const firing = await publish(h, p.inbound, event(h, { severity: 'critical', external_status: 'firing' }));
    expect(firing.body.pushed).toBe(true);
  });

  it('a moderation token event: never nudged', async () => {
    const p = await person();
    // No route mints moderation tokens yet: turn the personal token into one.
    await sql(`update inbound_tokens set kind = 'moderation' where owner_user_id = ? and kind = 'personal'`, [p.user.userId]);
    const r = await publish(h, p.inbound, event(h, { severity: 'critical', recipient: { type: 'email', value: 'someone@example.test' } }));
    expect(r.status, r.text).toBe(202);
    expect(r.body.pushed).toBe(false);
    await expectNoNudgeQueued(r.body.deliveryId);
  });

  it('info and success only land in the inbox by default; after SetPreferences info nudges', async () => {
    const p = await person();
    const prefs = await p.agent.getPreferences({});
    expect(prefs.preferences?.pushSeverities).toEqual(['critical', 'warn']);
    for (const severity of ['info', 'success']) {
      const r = await publish(h, p.inbound, event(h, { severity }));
      expect(r.body.pushed).toBe(false);
      await expectNoNudgeQueued(r.body.deliveryId);
    }
    const set = await p.agent.setPreferences({ pushSeverities: ['critical', 'warn', 'info'], updatePushSeverities: true });
    expect(set.preferences?.pushSeverities).toEqual(['critical', 'warn', 'info']);
    const r = await publish(h, p.inbound, event(h, { severity: 'info', title: 'Deploy finished' }));
    expect(r.body.pushed).toBe(true);
    const [push] = await until('push hit', () => rx.hitsFor(p.pushPath).length === 1 && rx.hitsFor(p.pushPath));
    expect(p.browser.decrypt(push!.body)).toMatchObject({ title: 'Deploy finished', severity: 'info' });
    await until('chat hit', () => rx.hitsFor(p.chatPath).length === 1);

    // chat_enabled false: push only.
    await p.agent.setPreferences({ chatEnabled: false });
    const r2 = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(r2.body.pushed).toBe(true);
    await until('push sent and settled', async () => rx.hitsFor(p.pushPath).length === 2 && (await outboxRows(r2.body.deliveryId)) === 0);
    expect(rx.hitsFor(p.chatPath)).toHaveLength(1);
    expect(await jobRows(r2.body.deliveryId)).toBe(0);
  });
});

describe('daily limits (UTC day of the service clock)', () => {
  it('daily_limit 1: the second event is accepted degraded, inbox only, pushed false', async () => {
    const p = await person({ dailyLimit: 1 });
    const first = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(first.body).toMatchObject({ pushed: true, degraded: false });
    // SPEC Limits: over the limit the event is accepted with 200 and degraded true.
    const second = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ pushed: false, degraded: true, deduped: false, fireCount: 1 });
    expect(await inboxRows(second.body.deliveryId)).toBe(1);
    await expectNoNudgeQueued(second.body.deliveryId);
    // Legacy endpoint: same rule, same truthful flags.
    const legacy = await h.svc.app.inject({
      method: 'POST',
      url: '/api/internal-os/integrations/inbound/personal',
      headers: { authorization: `Bearer ${p.inbound}`, 'content-type': 'application/json' },
      payload: event(h, { severity: 'critical' }),
    });
    expect(legacy.statusCode).toBe(200);
    expect(legacy.json()).toMatchObject({ pushed: false, degraded: true });
  });

  it('500 inbox notifications per user per day: the 501st is accepted degraded with no inbox row and no nudge', async () => {
    const p = await person();
    const day = h.clock.now().toISOString().slice(0, 10);
    // Reach the edge through the counter instead of posting 500 events.
    await sql(`insert into user_daily_counts (user_id, day, count) values (?, ?::date, 499)`, [p.user.userId, day]);
    const r500 = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(r500.body).toMatchObject({ pushed: true, degraded: false });
    expect(await inboxRows(r500.body.deliveryId)).toBe(1);
    const r501 = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(r501.status).toBe(200);
    expect(r501.body).toMatchObject({ pushed: false, degraded: true });
    expect(await inboxRows(r501.body.deliveryId)).toBe(0);
    await expectNoNudgeQueued(r501.body.deliveryId);
    // The delivery itself is stored: read-back and dedup still work.
    const again = await publish(
      h,
      p.inbound,
      event(h, { severity: 'critical', event_id: (await sql(`select event_id from deliveries where id = ?`, [r501.body.deliveryId]))[0].event_id }),
    );
    expect(again.status).toBe(200);
    // Another token of the same user shares the per-user limit.
    const t2 = await newPersonalToken(h, { user: p.user });
    const other = await publish(h, t2.token, event(h, { severity: 'critical' }));
    expect(other.body).toMatchObject({ degraded: true, pushed: false });
  });

  it('counters reset at 00:00 UTC of the service clock', async () => {
    const p = await person({ dailyLimit: 1 });
    await publish(h, p.inbound, event(h, { severity: 'critical' }));
    const over = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(over.body.degraded).toBe(true);
    const now = h.clock.now();
    const nextMidnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    h.clock.advance(nextMidnight - now.getTime() + 1_000);
    const fresh = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(fresh.status).toBe(202);
    expect(fresh.body).toMatchObject({ degraded: false, pushed: true });
    const days = await sql(
      `select day::text as day, count from token_daily_counts where token_id = (select token_id from deliveries where id = ?) order by day`,
      [fresh.body.deliveryId],
    );
    expect(days.map((d) => d.count)).toEqual([2, 1]);
  });
});

describe('failures and slow receivers', () => {
  it('a failing receiver is retried with backoff, then the nudge is dead and listed by ListFailedNudges', async () => {
    const p = await person({ push: false });
    rx.behave(p.chatPath, { status: 500 });
    const r = await publish(h, p.inbound, event(h, { severity: 'critical', title: 'Will fail' }));
    expect(r.body.pushed).toBe(true);
    await until('dead nudge recorded', async () => (await sql(`select 1 from nudge_failures where delivery_id = ?`, [r.body.deliveryId])).length > 0, 30_000);
    const listed = (await p.agent.listFailedNudges({})).items;
    // retryLimit 2: three attempts in all, then dead.
    expect(rx.hitsFor(p.chatPath)).toHaveLength(3);
    const gaps = rx
      .hitsFor(p.chatPath)
      .slice(1)
      .map((hit, i) => hit.at - rx.hitsFor(p.chatPath)[i]!.at);
    expect(gaps.every((g) => g >= 900)).toBe(true);
    expect(listed[0]).toMatchObject({
      deliveryId: r.body.deliveryId,
      channel: 'chat',
      attempts: 3,
      lastError: 'chat: HTTP 500',
      title: 'Will fail',
      severity: 'critical',
    });
    // The failure row is written by the last attempt; the queue marks the job failed right after it.
    await until(
      'job failed',
      async () => (await sql(`select state from pgboss.job where name = 'nudges' and data->>'deliveryId' = ?`, [r.body.deliveryId]))[0]?.state === 'failed',
    );
    // Another user sees none of them.
    const other = await person({ chat: false, push: false });
    expect((await other.agent.listFailedNudges({})).items).toEqual([]);
  });

  it('a receiver that refuses (4xx) is not retried: dead after one attempt', async () => {
    const p = await person({ push: false });
    rx.behave(p.chatPath, { status: 404 });
    const r = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    await until('dead', async () => (await sql(`select 1 from nudge_failures where delivery_id = ?`, [r.body.deliveryId])).length > 0);
    const listed = (await p.agent.listFailedNudges({})).items[0];
    expect(listed).toMatchObject({ deliveryId: r.body.deliveryId, attempts: 1, lastError: 'chat: HTTP 404' });
    expect(rx.hitsFor(p.chatPath)).toHaveLength(1);
  });

  it('a gone push subscription (410) is dropped', async () => {
    const p = await person({ chat: false });
    rx.behave(p.pushPath, { status: 410 });
    await publish(h, p.inbound, event(h, { severity: 'critical' }));
    await until('subscription dropped', async () => (await sql(`select 1 from push_subscriptions where user_id = ?`, [p.user.userId])).length === 0);
    expect((await p.agent.listFailedNudges({})).items).toEqual([]);
  });

  it('a subscription stored before the push service rule is dropped unsent; the user’s allowed one still gets the push', async () => {
    const p = await person({ chat: false });
    await sql(
      `insert into push_subscriptions (id, user_id, endpoint, p256dh, auth, created_at) values (gen_random_uuid(), ?, 'https://push.attacker.example/x', ?, ?, now())`,
      [p.user.userId, p.browser.p256dh, p.browser.auth],
    );
    await publish(h, p.inbound, event(h, { severity: 'critical' }));
    await until('the allowed endpoint was pushed', async () => rx.hitsFor(p.pushPath).length === 1);
    await until(
      'the other subscription dropped',
      async () => (await sql(`select endpoint from push_subscriptions where user_id = ?`, [p.user.userId])).length === 1,
    );
    expect(await sql(`select endpoint from push_subscriptions where user_id = ?`, [p.user.userId])).toEqual([{ endpoint: p.browser.endpoint }]);
    expect((await p.agent.listFailedNudges({})).items).toEqual([]);
  });

  it('a receiver hanging 2 s does not slow event acceptance', async () => {
    const p = await person({ push: false });
    rx.behave(p.chatPath, { delayMs: 2000 });
    const first = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(first.body.pushed).toBe(true);
    await until('receiver holding a request', () => rx.pending() > 0);
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const r = await publish(h, p.inbound, event(h, { severity: 'critical' }));
      latencies.push(performance.now() - t0);
      expect(r.status).toBe(202);
    }
    expect(rx.pending()).toBeGreaterThan(0);
    expect(Math.max(...latencies)).toBeLessThan(500);
    await until('all hung requests answered', () => rx.hitsFor(p.chatPath).length === 11 && rx.pending() === 0, 20_000);
  });
});

describe('NotificationSettingsService', () => {
  it('validates URLs (https only unless allowlisted) and styles, reporting the field', async () => {
    const p = await person({ chat: false, push: false });
    for (const url of ['http://example.com/hook', 'ftp://example.com', 'not a url', 'https://user:pw@example.com/x']) {
      const err = await p.agent.setChatDestination({ url, style: ChatStyle.SLACK }).then(
        () => null,
        (e) => ConnectError.from(e),
      );
      expect(err?.code).toBe(Code.InvalidArgument);
      expect(err?.findDetails(ValidationErrorDetailSchema)[0]?.violations.map((v) => v.field)).toEqual(['url']);
    }
    const noStyle = await p.agent.setChatDestination({ url: 'https://hooks.example.com/services/T0/B0/abcd', style: ChatStyle.UNSPECIFIED }).then(
      () => null,
      (e) => ConnectError.from(e),
    );
    expect(noStyle?.code).toBe(Code.InvalidArgument);
    const ok = await p.agent.setChatDestination({ url: 'https://hooks.example.com/services/T0/B0/secretpart1234', style: ChatStyle.SLACK });
    // The webhook URL is a credential: never echoed in full.
    expect(ok.preferences?.chatDestination).toMatchObject({ urlHint: 'https://hooks.example.com/…1234', style: ChatStyle.SLACK });
    const cleared = await p.agent.clearChatDestination({});
    expect(cleared.preferences?.chatDestination).toBeUndefined();
    const badPush = await p.agent.registerPushSubscription({ endpoint: 'http://push.example.com/x', p256dh: 'abc', auth: 'def' }).then(
      () => null,
      (e) => ConnectError.from(e),
    );
    expect(badPush?.code).toBe(Code.InvalidArgument);
  });

  it('push subscriptions: register twice refreshes, remove by endpoint', async () => {
    const p = await person({ chat: false });
    const again = await p.agent.registerPushSubscription({ endpoint: p.browser.endpoint, p256dh: p.browser.p256dh, auth: p.browser.auth });
    expect(again.subscriptionCount).toBe(1);
    const removed = await p.agent.removePushSubscription({ endpoint: p.browser.endpoint });
    expect(removed).toMatchObject({ removed: true, subscriptionCount: 0 });
    const r = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(r.body.pushed).toBe(false);
  });

  it('push endpoints: a host that is not a browser push service is push_service_not_allowed, and nothing is stored', async () => {
    const p = await person({ chat: false, push: false });
    const keys = browserSubscription('unused');
    for (const endpoint of [
      'https://evil.example.com/x',
      'https://fcm.googleapis.com.evil.com/fcm/send/abc',
      'https://evilfcm.googleapis.com/fcm/send/abc',
      'https://notify.windows.com.evil.com/w/?token=abc',
      'https://xnotify.windows.com/w/?token=abc',
      'https://notify.windows.com/w/?token=abc',
    ]) {
      const err = await p.agent.registerPushSubscription({ endpoint, p256dh: keys.p256dh, auth: keys.auth }).then(
        () => null,
        (e) => ConnectError.from(e),
      );
      expect(err?.code, endpoint).toBe(Code.InvalidArgument);
      const [v] = err!.findDetails(ValidationErrorDetailSchema)[0]!.violations;
      expect([v?.field, v?.code], endpoint).toEqual(['endpoint', 'push_service_not_allowed']);
      for (const named of [
        'fcm.googleapis.com',
        'updates.push.services.mozilla.com',
        '*.notify.windows.com',
        'web.push.apple.com',
        'PUSH_ENDPOINT_ALLOW_HOSTS',
      ]) {
        expect(v?.message).toContain(named);
      }
    }
    // The URL rules still come first: plain http to a push service is not https.
    const plain = await p.agent.registerPushSubscription({ endpoint: 'http://fcm.googleapis.com/fcm/send/abc', p256dh: keys.p256dh, auth: keys.auth }).then(
      () => null,
      (e) => ConnectError.from(e),
    );
    expect(plain?.findDetails(ValidationErrorDetailSchema)[0]?.violations.map((v) => [v.field, v.code])).toEqual([['endpoint', 'invalid_url']]);
    expect(await sql(`select id from push_subscriptions where user_id = ?`, [p.user.userId])).toEqual([]);
  });

  it('push endpoints: the known browser push services are accepted and stored (nothing is sent at registration)', async () => {
    const p = await person({ chat: false, push: false });
    const keys = browserSubscription('unused');
    const endpoints = [
      'https://fcm.googleapis.com/fcm/send/abc:APA91b',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk',
      'https://wns2-par02p.notify.windows.com/w/?token=BQYAAAD',
      'https://web.push.apple.com/QGuQyavXutnMH',
      // Case and a trailing dot do not make another host.
      'https://FCM.GoogleAPIs.com./fcm/send/upper',
    ];
    const hitsBefore = rx.hits.length;
    for (const [i, endpoint] of endpoints.entries()) {
      const out = await p.agent.registerPushSubscription({ endpoint, p256dh: keys.p256dh, auth: keys.auth });
      expect(out).toMatchObject({ subscriptionCount: i + 1, replacedSubscriptionIds: [] });
    }
    const rows = await sql(`select endpoint from push_subscriptions where user_id = ? order by created_at`, [p.user.userId]);
    expect(rows.map((r) => r.endpoint).sort()).toEqual([...endpoints].sort());
    expect(rx.hits.length).toBe(hitsBefore);
  });

  it('at most 20 push subscriptions: the 21st replaces the oldest; re-registering one replaces none', async () => {
    const p = await person({ chat: false, push: false });
    const keys = browserSubscription('unused');
    const endpoint = (i: number) => `https://fcm.googleapis.com/fcm/send/sub-${i}`;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const out = await p.agent.registerPushSubscription({ endpoint: endpoint(i), p256dh: keys.p256dh, auth: keys.auth });
      expect(out).toMatchObject({ subscriptionCount: i + 1, replacedSubscriptionIds: [] });
      ids.push(out.subscriptionId);
    }
    // Registration times are milliseconds apart: make the first one unmistakably the oldest.
    await sql(`update push_subscriptions set created_at = created_at - interval '1 hour' where id = ?`, [ids[0]]);

    const refreshed = await p.agent.registerPushSubscription({ endpoint: endpoint(5), p256dh: keys.p256dh, auth: keys.auth });
    expect(refreshed).toMatchObject({ subscriptionId: ids[5], subscriptionCount: 20, replacedSubscriptionIds: [] });

    const newest = await p.agent.registerPushSubscription({ endpoint: endpoint(20), p256dh: keys.p256dh, auth: keys.auth });
    expect(newest).toMatchObject({ subscriptionCount: 20, replacedSubscriptionIds: [ids[0]] });
    const rows = await sql(`select id, endpoint from push_subscriptions where user_id = ?`, [p.user.userId]);
    expect(rows).toHaveLength(20);
    expect(rows.map((r) => r.endpoint)).not.toContain(endpoint(0));
    expect(rows).toContainEqual({ id: newest.subscriptionId, endpoint: endpoint(20) });
  });

  it('a user holding more than 20 subscriptions from before the limit is brought back to 20 by the next new one', async () => {
    const p = await person({ chat: false, push: false });
    const keys = browserSubscription('unused');
    for (let i = 0; i < 23; i++) {
      await sql(
        `insert into push_subscriptions (id, user_id, endpoint, p256dh, auth, created_at) values (gen_random_uuid(), ?, ?, ?, ?, now() - make_interval(hours => ?))`,
        [p.user.userId, `https://fcm.googleapis.com/fcm/send/old-${i}`, keys.p256dh, keys.auth, 100 - i],
      );
    }
    const out = await p.agent.registerPushSubscription({ endpoint: 'https://fcm.googleapis.com/fcm/send/new', p256dh: keys.p256dh, auth: keys.auth });
    expect(out.subscriptionCount).toBe(20);
    expect(out.replacedSubscriptionIds).toHaveLength(4);
    const left = (await sql(`select endpoint from push_subscriptions where user_id = ?`, [p.user.userId])).map((r) => r.endpoint);
    expect(left).toHaveLength(20);
    // The four oldest went (old-0 .. old-3, registered 100 .. 97 hours ago).
    for (let i = 0; i < 4; i++) expect(left).not.toContain(`https://fcm.googleapis.com/fcm/send/old-${i}`);
    expect(left).toContain('https://fcm.googleapis.com/fcm/send/new');
  });

  it('scopes: reads need read:inbox, writes write:inbox; an inbound token is refused', async () => {
    const user = await newUser(h);
    const ro = await operator<{ token: string }>(h, 'agent_tokens.create', { email: user.email, scopes: ['read:inbox'] });
    const c = createClient(NotificationSettingsService, transportFor(h, 'connect', [bearer(ro.token)]));
    expect((await c.getPreferences({})).preferences?.pushSeverities).toEqual(['critical', 'warn']);
    expect((await c.getVapidPublicKey({})).publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    const denied = await c.setPreferences({ chatEnabled: false }).then(
      () => null,
      (e) => ConnectError.from(e),
    );
    expect(denied?.code).toBe(Code.PermissionDenied);
    const t = await newPersonalToken(h);
    const wrong = createClient(NotificationSettingsService, transportFor(h, 'connect', [bearer(t.token)]));
    expect(
      (
        await wrong.getPreferences({}).then(
          () => null,
          (e) => ConnectError.from(e),
        )
      )?.code,
    ).toBe(Code.Unauthenticated);
  });
});
