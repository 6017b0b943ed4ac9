// GET /api/v1/events/{deliveryId}/trace and EventService.GetDeliveryTrace (docs/contract.md "Delivery
// trace"): what the service did with a delivery, oldest first, through real HTTP against real
// PostgreSQL and Redis, with a local receiver (127.0.0.1) standing in for chat webhooks, push
// services and action callback receivers. The worker's progress is polled with a deadline; the
// only real wait is the queue's 1 s retry delay.
import { randomUUID } from 'node:crypto';
import { Code, createClient, type Client } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventService } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { ModerationService } from '../../../gen/fluxdesk/moderation/v1/moderation_pb.js';
import { ChatStyle, NotificationSettingsService } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { bearer, closeSessions, fails, transportFor } from '../../helpers/connect.js';
import { event, http, newPersonalToken, newUser, operator, publish, startHarness, type Harness, type TestUser } from '../../helpers/harness.js';
import { expectProblem, sql as sqlOf, tag } from '../../helpers/tools.js';
import { createEgressClient } from '../../../src/infra/http-egress/egress-client.js';
import { quietSummaryTask } from '../../../src/domain/nudges/send-quiet-summaries.js';
import { NUDGE_LIMITS } from '../../../src/domain/nudges/nudges.limits.js';
import { browserSubscription, startReceiver, until, type Receiver } from '../nudges/receiver.js';
import { ok } from '../mcp/admin-fixtures.js';
import { newAgent } from '../mcp/rpc.js';

let h: Harness;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startHarness({
    env: {
      NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1',
      PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1',
      EGRESS_ALLOW_HOSTS: '127.0.0.1',
      NUDGE_RETRY_LIMIT: '2',
      NUDGE_RETRY_DELAY_S: '1',
      NUDGE_RELAY_INTERVAL_MS: '50',
    },
    callbackSender: createEgressClient({ allowHosts: ['127.0.0.1'], timeoutMs: 2000 }),
  });
});
afterAll(async () => {
  closeSessions();
  await h?.close();
  await rx?.close();
});

const sql = (q: string, params: unknown[] = []) => sqlOf(h, q, params);
const trace = (token: string, deliveryId: string) => http(h, 'GET', `/api/v1/events/${deliveryId}/trace`, { token });
const tick = (ms = 1000) => h.clock.advance(ms);
/** Steps without their times, for comparing shapes. */
const shapes = (body: any) => (body.steps as any[]).map(({ at: _at, ...rest }) => rest);
const names = (body: any) => (body.steps as any[]).map((s) => s.step);

/** Keys a step may carry: what the service did, never what the person did. */
const STEP_KEYS = new Set(['at', 'step', 'channel', 'limit', 'reason', 'attempt', 'status', 'error', 'nextRetryAt', 'actionIndex', 'actionLabel']);
function expectServiceOnly(body: any) {
  for (const s of body.steps) for (const k of Object.keys(s)) expect(STEP_KEYS.has(k), k).toBe(true);
  expect(JSON.stringify(body)).not.toMatch(/read|seen|done|snooze/i);
  const times = (body.steps as any[]).map((s) => Date.parse(s.at));
  expect(times).toEqual([...times].sort((a, b) => a - b));
}

async function traced(token: string, deliveryId: string) {
  const r = await trace(token, deliveryId);
  expect(r.status, r.text).toBe(200);
  expectServiceOnly(r.body);
  return r.body;
}

let seq = 0;
interface Person {
  user: TestUser;
  inbound: string;
  inboundId: string;
  agentToken: string;
  settings: Client<typeof NotificationSettingsService>;
  chatPath: string;
  pushPath: string;
}

/** A user with a personal token, an agent token, and (by default) a chat destination and a browser subscription on the receiver. */
async function person(opts: { chat?: boolean; push?: boolean } = {}): Promise<Person> {
  const user = await newUser(h);
  const t = await newPersonalToken(h, { user });
  const a = await operator<{ token: string }>(h, 'agent_tokens.create', { email: user.email });
  const settings = createClient(NotificationSettingsService, transportFor(h, 'connect', [bearer(a.token)]));
  const id = `t${seq++}-${user.userId.slice(0, 8)}`;
  const p: Person = { user, inbound: t.token, inboundId: t.tokenId, agentToken: a.token, settings, chatPath: `/chat/${id}`, pushPath: `/push/${id}` };
  if (opts.chat !== false) await settings.setChatDestination({ url: `${rx.url}${p.chatPath}`, style: ChatStyle.SLACK });
  if (opts.push !== false) {
    const b = browserSubscription(`${rx.url}${p.pushPath}`);
    await settings.registerPushSubscription({ endpoint: b.endpoint, p256dh: b.p256dh, auth: b.auth });
  }
  return p;
}

const stepsOf = async (p: Person, deliveryId: string, want: (body: any) => boolean, what: string, timeoutMs?: number) =>
  until(
    what,
    async () => {
      const b = await traced(p.inbound, deliveryId);
      return want(b) && b;
    },
    timeoutMs,
  );

describe('the trace of what became of a delivery', () => {
  it('a plain event: accepted, then its inbox row; no channel held each nudge; read, done and snooze never show', async () => {
    const p = await person({ chat: false, push: false });
    const r = await publish(h, p.inbound, event(h, { severity: 'warn' }));
    expect(r.status).toBe(202);
    const b = await traced(p.inbound, r.body.deliveryId);
    expect(b).toEqual({ deliveryId: r.body.deliveryId, fireCount: 1, steps: expect.any(Array), requestId: expect.any(String) });
    expect(shapes(b)).toEqual([
      { step: 'accepted' },
      { step: 'inbox_row' },
      { step: 'nudge_held', reason: 'no_channel', channel: 'push' },
      { step: 'nudge_held', reason: 'no_channel', channel: 'chat' },
    ]);
    expect(b.steps[0].at).toBe(r.body.createdAt);
    // What the person does with the inbox row is not the service's doing.
    tick();
    await sql(`update notifications set read_at = ?, state = 'done', done_at = ? where delivery_id = ?`, [
      h.clock.now().toISOString(),
      h.clock.now().toISOString(),
      r.body.deliveryId,
    ]);
    expect((await traced(p.inbound, r.body.deliveryId)).steps).toEqual(b.steps);
  });

  it('a severity the preferences do not nudge: held for preference; one the token threshold stops: held for threshold', async () => {
    const p = await person();
    const info = await publish(h, p.inbound, event(h, { severity: 'info' }));
    expect(shapes(await traced(p.inbound, info.body.deliveryId))).toEqual([
      { step: 'accepted' },
      { step: 'inbox_row' },
      { step: 'nudge_held', reason: 'preference' },
    ]);
    await sql(`update inbound_tokens set nudge_threshold = 'critical' where id = ?`, [p.inboundId]);
    const warn = await publish(h, p.inbound, event(h, { severity: 'warn' }));
    expect(warn.body.pushed).toBe(false);
    expect(shapes(await traced(p.inbound, warn.body.deliveryId))).toEqual([
      { step: 'accepted' },
      { step: 'inbox_row' },
      { step: 'nudge_held', reason: 'threshold' },
    ]);
  });

  it('re-fires: the latest 20 are listed, oldest first; fireCount counts every arrival', async () => {
    const p = await person({ chat: false, push: false });
    const ev = event(h, { severity: 'info' });
    const first = await publish(h, p.inbound, ev);
    // The clock's time before each re-fire (it runs on between ticks).
    const before: number[] = [];
    for (let i = 0; i < 22; i++) {
      tick();
      before.push(h.clock.now().getTime());
      const again = await publish(h, p.inbound, ev);
      expect(again.status).toBe(200);
    }
    const b = await traced(p.inbound, first.body.deliveryId);
    expect(b.fireCount).toBe(23);
    const refired = b.steps.filter((s: any) => s.step === 'refired').map((s: any) => Date.parse(s.at));
    expect(refired).toHaveLength(20);
    // The latest 20: the first two re-fires are left out.
    refired.forEach((at: number, i: number) => {
      expect(at).toBeGreaterThanOrEqual(before[i + 2]!);
      if (i + 3 < before.length) expect(at).toBeLessThan(before[i + 3]!);
    });
    expect(names(b).slice(0, 2)).toEqual(['accepted', 'inbox_row']);
  });

  it('a nudged event: nudge_sent per channel, with the attempt', async () => {
    const p = await person();
    rx.behave(p.chatPath, { status: 200 });
    const r = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(r.body.pushed).toBe(true);
    const b = await stepsOf(p, r.body.deliveryId, (x) => x.steps.filter((s: any) => s.step === 'nudge_sent').length === 2, 'both nudges sent');
    expect(shapes(b)).toEqual(
      expect.arrayContaining([
        { step: 'nudge_sent', channel: 'chat', attempt: 1 },
        { step: 'nudge_sent', channel: 'push', attempt: 1 },
      ]),
    );
    expect(names(b).slice(0, 2)).toEqual(['accepted', 'inbox_row']);
    expect(b.steps.some((s: any) => s.step === 'nudge_held')).toBe(false);
  });

  it('a failed then retried nudge: nudge_failed with the status and the next retry time, then nudge_sent on attempt 2', async () => {
    const p = await person({ push: false });
    rx.behave(p.chatPath, { status: 500 });
    const r = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    await until('first attempt', () => rx.hitsFor(p.chatPath).length === 1);
    rx.behave(p.chatPath, { status: 200 });
    const b = await stepsOf(p, r.body.deliveryId, (x) => x.steps.some((s: any) => s.step === 'nudge_sent'), 'the retry sent', 30_000);
    const nudges = b.steps.filter((s: any) => s.step.startsWith('nudge_'));
    expect(nudges).toEqual([
      { at: r.body.createdAt, step: 'nudge_held', channel: 'push', reason: 'no_channel' },
      { at: expect.any(String), step: 'nudge_failed', channel: 'chat', attempt: 1, status: 500, nextRetryAt: expect.any(String) },
      { at: expect.any(String), step: 'nudge_sent', channel: 'chat', attempt: 2 },
    ]);
    // The outbox attempt's retry is queued exactly NUDGE_RETRY_DELAY_S later.
    expect(Date.parse(nudges[1].nextRetryAt) - Date.parse(nudges[1].at)).toBe(1000);
    expect(rx.hitsFor(p.chatPath)).toHaveLength(2);
  });

  it('a receiver that refuses (4xx): nudge_dead after one attempt, with its status', async () => {
    const p = await person({ push: false });
    rx.behave(p.chatPath, { status: 400 });
    const r = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    const b = await stepsOf(p, r.body.deliveryId, (x) => x.steps.some((s: any) => s.step === 'nudge_dead'), 'dead');
    expect(shapes(b).filter((s: any) => s.step.startsWith('nudge_'))).toEqual([
      { step: 'nudge_held', channel: 'push', reason: 'no_channel' },
      { step: 'nudge_dead', channel: 'chat', attempt: 1, status: 400 },
    ]);
  });

  it('quiet hours: nudge_held quiet_hours, still there after the summary took the held nudge', async () => {
    const p = await person();
    const local = DateTime.fromJSDate(h.clock.now(), { zone: 'Asia/Tokyo' });
    await p.settings.setPreferences({
      quietHours: {
        start: local.minus({ minutes: 60 }).toFormat('HH:mm'),
        end: local.plus({ minutes: 30 }).toFormat('HH:mm'),
        timeZone: 'Asia/Tokyo',
        days: [],
      },
    });
    const r = await publish(h, p.inbound, event(h, { severity: 'warn' }));
    expect(r.body.pushed).toBe(false);
    const held = [{ step: 'accepted' }, { step: 'inbox_row' }, { step: 'nudge_held', reason: 'quiet_hours' }];
    expect(shapes(await traced(p.inbound, r.body.deliveryId))).toEqual(held);
    tick(31 * 60_000 + NUDGE_LIMITS.quietSummaryGraceSeconds * 1000 + 60_000);
    await until('the held nudge summed up', async () => {
      await quietSummaryTask.run(h.svc.deps, h.clock.now());
      return (await sql('select 1 from nudge_held where user_id = ?', [p.user.userId])).length === 0;
    });
    const after = await traced(p.inbound, r.body.deliveryId);
    expect(shapes(after)).toEqual(held);
    expect(after.steps[2].at).toBe(r.body.createdAt);
  });

  it('over the token daily limit: degraded token_daily, inbox row, the nudges held as degraded', async () => {
    const p = await person();
    await sql(`update inbound_tokens set daily_limit = 1 where id = ?`, [p.inboundId]);
    await publish(h, p.inbound, event(h, { severity: 'critical' }));
    const over = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(over.body).toMatchObject({ degraded: true, pushed: false });
    expect(shapes(await traced(p.inbound, over.body.deliveryId))).toEqual([
      { step: 'accepted' },
      { step: 'inbox_row' },
      { step: 'degraded', limit: 'token_daily' },
      { step: 'nudge_held', reason: 'degraded' },
    ]);
  });

  it('over the per-user daily limit: degraded user_daily, no inbox row', async () => {
    const p = await person();
    await sql(`insert into user_daily_counts (user_id, day, count) values (?, ?::date, 500)`, [p.user.userId, h.clock.now().toISOString().slice(0, 10)]);
    const over = await publish(h, p.inbound, event(h, { severity: 'critical' }));
    expect(over.body).toMatchObject({ degraded: true, pushed: false });
    expect(shapes(await traced(p.inbound, over.body.deliveryId))).toEqual([
      { step: 'accepted' },
      { step: 'degraded', limit: 'user_daily' },
      { step: 'nudge_held', reason: 'degraded' },
    ]);
  });

  it('a moderation token: held_for_moderation, then forwarded; no inbox row, no nudge', async () => {
    const admin = await newUser(h, 'admin');
    const agent = await newAgent(h, undefined, admin);
    const m = await ok(h, agent.token, 'issue_admin_moderation_token', { label: `Vendor ${tag()}` });
    const target = await newUser(h);
    const ev = event(h, { event_type: `${m.allowed_event_prefix}ticket.escalated`, severity: 'critical', recipient: { type: 'email', value: target.email } });
    const r = await publish(h, m.token_value, ev);
    expect(r.status, r.text).toBe(202);
    expect(shapes(await traced(m.token_value, r.body.deliveryId))).toEqual([{ step: 'accepted' }, { step: 'held_for_moderation' }]);
    const svc = createClient(ModerationService, transportFor(h, 'connect', [bearer(agent.token)]));
    const entry = (await svc.listHeldEvents({ all: true })).items.find((i) => i.eventId === ev.event_id)!;
    tick();
    const beforeForward = h.clock.now().getTime();
    await svc.forwardHeldEvent({ entryId: entry.entryId, email: target.email });
    const afterForward = h.clock.now().getTime();
    const b = await traced(m.token_value, r.body.deliveryId);
    expect(shapes(b)).toEqual([{ step: 'accepted' }, { step: 'held_for_moderation' }, { step: 'forwarded' }]);
    expect(Date.parse(b.steps[2].at)).toBeGreaterThanOrEqual(beforeForward);
    expect(Date.parse(b.steps[2].at)).toBeLessThanOrEqual(afterForward);
  });

  it('resolved and supplemented, at their times', async () => {
    const p = await person({ chat: false, push: false });
    const r = await publish(h, p.inbound, event(h, { severity: 'info' }));
    const id = r.body.deliveryId;
    tick();
    const sup1 = await http(h, 'POST', `/api/v1/events/${id}/supplement`, { token: p.inbound, body: { markdown_body: 'one' } });
    expect(sup1.status).toBe(201);
    tick();
    const resolved = await http(h, 'POST', `/api/v1/events/${id}/resolve`, { token: p.inbound, body: {} });
    expect(resolved.status).toBe(200);
    tick();
    const sup2 = await http(h, 'POST', `/api/v1/events/${id}/supplement`, { token: p.inbound, body: { markdown_body: 'two' } });
    expect(sup2.status).toBe(201);
    const b = await traced(p.inbound, id);
    expect(b.steps.filter((s: any) => ['supplemented', 'resolved'].includes(s.step))).toEqual([
      { at: sup1.body.supplements[0].createdAt, step: 'supplemented' },
      { at: resolved.body.resolvedAt, step: 'resolved' },
      { at: sup2.body.supplements[1].createdAt, step: 'supplemented' },
    ]);
  });

  it("a clicked action: action_clicked with the action's index and label and the receiver's status", async () => {
    const p = await person({ chat: false, push: false });
    const r = await publish(
      h,
      p.inbound,
      event(h, { actions: [{ label: 'Approve', action_type: 'webhook', webhook_url: 'https://hooks.example.test/approve' }] }),
    );
    const path = `/hook/${randomUUID()}`;
    await sql(`update deliveries set actions = jsonb_set(actions, '{0,webhook_url}', to_jsonb(?::text)) where id = ?`, [`${rx.url}${path}`, r.body.deliveryId]);
    rx.behave(path, { status: 202 });
    const account = createClient(AccountService, transportFor(h, 'connect', [bearer(p.agentToken)]));
    tick();
    expect(await account.clickAction({ deliveryId: r.body.deliveryId, actionIndex: 0 })).toMatchObject({ status: 202, ok: true });
    rx.behave(path, { status: 500 });
    tick();
    expect(await account.clickAction({ deliveryId: r.body.deliveryId, actionIndex: 0 })).toMatchObject({ status: 500, ok: false });
    const b = await traced(p.inbound, r.body.deliveryId);
    expect(shapes(b).filter((s: any) => s.step === 'action_clicked')).toEqual([
      { step: 'action_clicked', actionIndex: 0, actionLabel: 'Approve', status: 202 },
      { step: 'action_clicked', actionIndex: 0, actionLabel: 'Approve', status: 500 },
    ]);
  });
});

describe('who may read a trace', () => {
  it('only the sending token: another user, another token of the same user and an unknown id get 404; an agent token 401', async () => {
    const p = await person({ chat: false, push: false });
    const r = await publish(h, p.inbound, event(h));
    const mine = await trace(p.inbound, r.body.deliveryId);
    expect(mine.status).toBe(200);
    // One read of the request budget, on the read-back's window.
    expect(mine.headers.get('x-ratelimit-limit')).toBe('600');
    const readBack = await http(h, 'GET', `/api/v1/events/${r.body.deliveryId}`, { token: p.inbound });
    expect(Number(readBack.headers.get('x-ratelimit-remaining'))).toBe(Number(mine.headers.get('x-ratelimit-remaining')) - 1);
    const stranger = await newPersonalToken(h);
    const sibling = await newPersonalToken(h, { user: p.user });
    for (const token of [stranger.token, sibling.token]) {
      const other = await trace(token, r.body.deliveryId);
      expectProblem(other, 404, 'not_found');
      const unknown = await trace(token, randomUUID());
      expectProblem(unknown, 404, 'not_found');
      // Nothing tells another token's delivery from an unknown one.
      expect(unknown.body.detail).toBe(other.body.detail);
    }
    expect((await trace(p.agentToken, r.body.deliveryId)).status).toBe(401);
    expect((await trace(p.inbound, 'not-a-uuid')).status).toBe(400);
  });
});

describe('EventService.GetDeliveryTrace', () => {
  it('answers what REST answers; another token gets not_found', async () => {
    const p = await person({ push: false });
    rx.behave(p.chatPath, { status: 200 });
    const ev = event(h, { severity: 'critical' });
    const r = await publish(h, p.inbound, ev);
    tick();
    await publish(h, p.inbound, ev);
    const rest = await stepsOf(p, r.body.deliveryId, (x) => x.steps.some((s: any) => s.step === 'nudge_sent'), 'chat sent');
    const client = createClient(EventService, transportFor(h, 'connect', [bearer(p.inbound)]));
    const out = await client.getDeliveryTrace({ deliveryId: r.body.deliveryId });
    expect(out.deliveryId).toBe(r.body.deliveryId);
    expect(out.fireCount).toBe(2);
    expect(
      out.steps.map((s) => ({
        at: timestampDate(s.at!).toISOString(),
        step: s.step,
        ...(s.channel !== undefined ? { channel: s.channel } : {}),
        ...(s.reason !== undefined ? { reason: s.reason } : {}),
        ...(s.attempt !== undefined ? { attempt: s.attempt } : {}),
      })),
    ).toEqual(rest.steps);
    const other = await newPersonalToken(h);
    const err = await fails(createClient(EventService, transportFor(h, 'connect', [bearer(other.token)])).getDeliveryTrace({ deliveryId: r.body.deliveryId }));
    expect(err.code).toBe(Code.NotFound);
  });
});
