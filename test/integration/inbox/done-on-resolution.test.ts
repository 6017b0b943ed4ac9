// Done on resolution (Preferences.done_on_resolution, default off): when the sender moves a
// delivery to a terminal external status by a repeat (through the repeat statement and through the
// full publish statement) or by the resolve call, the recipient's inbox row moves to Done, read,
// and the view counts follow; with the setting off nothing moves. Open inboxes learn of the change
// after the commit (the live feed names the delivery).
import { createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboxService } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { NotificationSettingsService } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { newDelivery, writeDeliveries } from '../../../src/domain/events/events.repository.js';
import { InboundEventSchema } from '../../../src/domain/events/event-validation.rules.js';
import { utcDay } from '../../../src/domain/nudges/nudge.rules.js';
import { withToken } from '../../helpers/agents.js';
import { bearer, closeSessions, transportFor } from '../../helpers/connect.js';
import { event, http, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { call, mcp, toolText } from '../mcp/rpc.js';
import { until } from '../nudges/receiver.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;
const rowOf = async (deliveryId: string) =>
  (await sql('select id, state, done_at, read_at, snoozed_until from notifications where delivery_id = ?', [deliveryId]))[0];
const stats = () => h.svc.deps.ports.events.groupCommit.stats();

interface Person {
  pt: TestToken;
  agentToken: string;
  inbox: Client<typeof InboxService>;
  settings: Client<typeof NotificationSettingsService>;
}

async function person(doneOnResolution: boolean): Promise<Person> {
  const pt = await newPersonalToken(h);
  const ag = await withToken(h, pt.user, ['read:inbox', 'write:inbox', 'write:inbound']);
  const transport = transportFor(h, 'connect', [bearer(ag.token)]);
  const p = { pt, agentToken: ag.token, inbox: createClient(InboxService, transport), settings: createClient(NotificationSettingsService, transport) };
  if (doneOnResolution) expect((await p.settings.setPreferences({ doneOnResolution: true })).preferences?.doneOnResolution).toBe(true);
  return p;
}

/** A first arrival with a non-terminal status, then the clock moves on (a repeat's status time is its own). */
async function firing(p: Person, over: Record<string, unknown> = {}) {
  const ev = event(h, { external_status: 'firing', ...over });
  const r = await publish(h, p.pt.token, ev);
  expect(r.status, r.text).toBe(202);
  h.clock.advance(1_000);
  return { ev, deliveryId: r.body.deliveryId as string };
}

describe('done on resolution: on', () => {
  it('a repeat with a terminal status (the repeat statement) moves the row to Done and read; the counts follow', async () => {
    const p = await person(true);
    const { ev, deliveryId } = await firing(p);
    const before = await p.inbox.listInbox({ view: 'all' });
    expect(before.viewCounts).toMatchObject({ inbox: { total: 1, unread: 1 }, done: { total: 0 } });
    const s0 = stats();
    const r = await publish(h, p.pt.token, { ...ev, external_status: 'resolved' });
    expect(r.status).toBe(200);
    expect(stats().repeat - s0.repeat).toBe(1);
    const row = await rowOf(deliveryId);
    expect(row).toMatchObject({ state: 'done', snoozed_until: null });
    expect(row.done_at).not.toBeNull();
    expect(row.read_at).not.toBeNull();
    const after = await p.inbox.listInbox({ view: 'all' });
    expect(after.viewCounts).toMatchObject({ inbox: { total: 0, unread: 0 }, done: { total: 1, unread: 0 } });

    // Moved back to the Inbox by its owner: a repeat with the same terminal status leaves it there.
    await p.inbox.moveToInbox({ notificationIds: [row.id] });
    h.clock.advance(1_000);
    await publish(h, p.pt.token, { ...ev, external_status: 'resolved' });
    expect((await rowOf(deliveryId)).state).toBe('inbox');
  });

  it('a snoozed row, through the full statement (a repeat this process did not write), for approved, rejected and withdrawn', async () => {
    const p = await person(true);
    for (const status of ['approved', 'rejected', 'withdrawn'] as const) {
      const { ev, deliveryId } = await firing(p, { event_type: `personal.review.${status}` });
      const row = await rowOf(deliveryId);
      await p.inbox.snooze({ notificationId: row.id, preset: 'tomorrow', timeZone: 'UTC' });
      // The repeat as the full publish statement writes it (group commit's fallback for pairs it did not write).
      const now = h.clock.now();
      const item = newDelivery(InboundEventSchema.parse({ ...ev, external_status: status }), {
        tokenId: p.pt.tokenId,
        integratorId: (await sql('select integrator_id from inbound_tokens where id = ?', [p.pt.tokenId]))[0].integrator_id,
        recipientUserId: p.pt.user.userId,
        projectId: null,
      });
      const [written] = await writeDeliveries(
        h.svc.deps.orm.em.getConnection(),
        undefined,
        [{ item, row: { now: now.toISOString(), source: 'test', requestId: `req-${status}` } }],
        { day: utcDay(now) },
      );
      expect(written).toMatchObject({ id: deliveryId, inserted: false, external_status: status });
      expect(await rowOf(deliveryId)).toMatchObject({ state: 'done', snoozed_until: null });
      h.clock.advance(1_000);
    }
    const counts = (await p.inbox.listInbox({ view: 'all' })).viewCounts;
    expect(counts).toMatchObject({ inbox: { total: 0 }, snoozed: { total: 0 }, done: { total: 3, unread: 0 } });
  });

  it('the resolve call (REST and the MCP tool) moves the row to Done; open inboxes are told after the commit', async () => {
    const p = await person(true);
    const a = await firing(p);
    const sub = h.svc.deps.ports.inboxFeed.subscribe(p.pt.user.userId);
    await sub.ready;
    const seen: string[] = [];
    const reading = (async () => {
      for await (const batch of sub) seen.push(...batch.deliveryIds);
    })();
    try {
      const r = await http(h, 'POST', `/api/v1/events/${a.deliveryId}/resolve`, { token: p.pt.token, body: { resolution_note: 'fixed' } });
      expect(r.status, r.text).toBe(200);
      expect(await rowOf(a.deliveryId)).toMatchObject({ state: 'done' });
      await until('the feed names the delivery', () => seen.includes(a.deliveryId));
    } finally {
      sub.close();
      await reading;
    }

    const b = await firing(p);
    const res = await mcp(h, call('resolve_inbound_event', { delivery_id: b.deliveryId }), { token: p.agentToken });
    expect(res.status, res.text).toBe(200);
    expect(toolText(res.body)).toMatchObject({ ok: true, resolved: true });
    expect((await rowOf(b.deliveryId)).state).toBe('done');

    // A repeated resolve (status already resolved) does not move a row its owner brought back.
    await p.inbox.moveToInbox({ notificationIds: [(await rowOf(b.deliveryId)).id] });
    const again = await http(h, 'POST', `/api/v1/events/${b.deliveryId}/resolve`, { token: p.pt.token, body: {} });
    expect(again.status).toBe(200);
    expect((await rowOf(b.deliveryId)).state).toBe('inbox');
  });
});

describe('done on resolution: off (the default)', () => {
  it('a terminal repeat and a resolve leave the row in the Inbox, unread', async () => {
    const p = await person(false);
    expect((await p.settings.getPreferences({})).preferences?.doneOnResolution).toBe(false);
    const a = await firing(p);
    await publish(h, p.pt.token, { ...a.ev, external_status: 'resolved' });
    expect(await rowOf(a.deliveryId)).toMatchObject({ state: 'inbox', done_at: null, read_at: null });
    const b = await firing(p);
    expect((await http(h, 'POST', `/api/v1/events/${b.deliveryId}/resolve`, { token: p.pt.token, body: {} })).status).toBe(200);
    expect(await rowOf(b.deliveryId)).toMatchObject({ state: 'inbox', done_at: null, read_at: null });
    // A non-terminal status change moves nothing either way.
    const q = await person(true);
    const c = await firing(q);
    await publish(h, q.pt.token, { ...c.ev, external_status: 'pending' });
    expect((await rowOf(c.deliveryId)).state).toBe('inbox');
  });
});
