// fluxdesk.inbox.v1 InboxService and ViewerService through the real Connect client (agent tokens):
// every event field of a REST-published event, filters, keyset pages, counts, get, mark read, mark
// all read; the wrong caller (another user's id: not_found like an unknown one; a missing scope:
// permission_denied) and bad input (invalid_argument with every violation, nothing changed).
import { Code, type ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { InboxService, ViewerService } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { agents, withToken, type AgentUser } from '../../helpers/agents.js';
import { bearer, closeSessions, fails, timestampMs, transportFor, type Protocol, violations } from '../../helpers/connect.js';
import { event, http, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const { agent } = agents(() => h);
const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

const inbox = (token: string | undefined, protocol: Protocol = 'connect'): Client<typeof InboxService> =>
  createClient(InboxService, transportFor(h, protocol, [bearer(token)]));
const viewer = (token: string | undefined): Client<typeof ViewerService> => createClient(ViewerService, transportFor(h, 'connect', [bearer(token)]));

const info = (err: ConnectError) => err.findDetails(ErrorInfoSchema)[0];

/** A user with a personal token (to publish) and an agent token (to read the inbox). */
async function person(scopes?: string[]): Promise<{ pt: TestToken; ag: AgentUser }> {
  const pt = await newPersonalToken(h);
  return { pt, ag: await withToken(h, pt.user, scopes) };
}

async function published(pt: TestToken, over: Record<string, unknown> = {}): Promise<{ deliveryId: string; body: any; ev: Record<string, unknown> }> {
  const ev = event(h, over);
  const r = await publish(h, pt.token, ev);
  expect(r.status, r.text).toBe(202);
  return { deliveryId: r.body.deliveryId, body: r.body, ev };
}

describe('ListInbox and GetInboxItem: every event field', () => {
  it('an event with every field comes back whole, webhook_url never', async () => {
    const { pt, ag } = await person();
    const occurred = new Date(h.clock.now().getTime() - 120_000).toISOString();
    const { deliveryId } = await published(pt, {
      event_type: 'personal.deploy.failed',
      severity: 'critical',
      tone: 'negative',
      title: 'Deploy failed',
      summary: 'prod-eu is down',
      markdown_body: '# Details\n\nThe **deploy** failed.',
      markdown_body_rendering: 'expanded',
      external_url: 'https://ci.example.com/runs/1',
      external_status: 'firing',
      actor: { email: 'ci-bot@example.com', name: 'CI Bot' },
      labels: { env: 'prod', region: 'eu' },
      actions: [
        { label: 'Open run', action_type: 'url', url: 'https://ci.example.com/runs/1' },
        { label: 'Retry', action_type: 'webhook', webhook_url: 'https://hooks.example.com/retry' },
      ],
      occurred_at: occurred,
    });
    const list = await inbox(ag.token).listInbox({});
    expect(list.totalCount).toBe(1);
    expect(list.unreadCount).toBe(1);
    expect(list.nextPageToken).toBeUndefined();
    const item = list.items[0]!;
    expect(item).toMatchObject({
      type: 'system',
      title: 'Deploy failed',
      summary: 'prod-eu is down',
      read: false,
      deliveryId,
      eventType: 'personal.deploy.failed',
      severity: 'critical',
      tone: 'negative',
      markdownBody: '# Details\n\nThe **deploy** failed.',
      markdownBodyRendering: 'expanded',
      externalUrl: 'https://ci.example.com/runs/1',
      externalStatus: 'firing',
      fireCount: 1,
      labels: { env: 'prod', region: 'eu' },
      supplements: [],
    });
    expect(item.targetUrl).toBeUndefined();
    expect(item.readAt).toBeUndefined();
    expect(item.resolvedAt).toBeUndefined();
    expect(item.actor).toMatchObject({ email: 'ci-bot@example.com', name: 'CI Bot' });
    expect(timestampMs(item.occurredAt)).toBe(Date.parse(occurred));
    expect(timestampMs(item.externalStatusAt)).toBe(timestampMs(item.createdAt));
    expect(item.actions.map((a) => ({ index: a.index, label: a.label, kind: a.kind, url: a.url, actionType: a.actionType }))).toEqual([
      { index: 0, label: 'Open run', kind: 'url', url: 'https://ci.example.com/runs/1', actionType: 'url' },
      { index: 1, label: 'Retry', kind: 'webhook', url: undefined, actionType: 'webhook' },
    ]);
    // The JSON on the wire never names the webhook receiver.
    const raw = await http(h, 'POST', '/fluxdesk.inbox.v1.InboxService/ListInbox', {
      token: ag.token,
      body: {},
      headers: { 'connect-protocol-version': '1' },
    });
    expect(raw.status).toBe(200);
    expect(raw.text).not.toContain('hooks.example.com');

    const got = await inbox(ag.token).getInboxItem({ notificationId: item.notificationId });
    expect(got.item).toEqual(item);
  });

  it('a repeat, a resolve and supplements show up: fire count, resolved stamp and note, supplements oldest first', async () => {
    const { pt, ag } = await person();
    const { deliveryId, ev } = await published(pt, { markdown_body: 'first body', external_status: 'firing' });
    h.clock.advance(1000);
    const again = await publish(h, pt.token, { ...ev, title: 'Build failed again', markdown_body: 'second body' });
    expect(again.status).toBe(200);
    for (const text of ['step 1 done', 'step 2 done']) {
      h.clock.advance(1000);
      const s = await http(h, 'POST', `/api/v1/events/${deliveryId}/supplement`, { token: pt.token, body: { markdown_body: text } });
      expect(s.status, s.text).toBe(201);
    }
    h.clock.advance(1000);
    const r = await http(h, 'POST', `/api/v1/events/${deliveryId}/resolve`, { token: pt.token, body: { resolution_note: 'fixed by rollback' } });
    expect(r.status, r.text).toBe(200);

    const [item] = (await inbox(ag.token).listInbox({})).items;
    expect(item).toMatchObject({
      title: 'Build failed again',
      markdownBody: 'second body',
      markdownBodyRendering: 'collapsed',
      fireCount: 2,
      externalStatus: 'resolved',
      resolutionNote: 'fixed by rollback',
    });
    expect(item!.supplements.map((s) => s.markdownBody)).toEqual(['step 1 done', 'step 2 done']);
    expect(timestampMs(item!.resolvedAt)).toBe(timestampMs(item!.externalStatusAt));
    expect(timestampMs(item!.updatedAt)).toBe(timestampMs(item!.resolvedAt));
    expect(timestampMs(item!.updatedAt)).toBeGreaterThan(timestampMs(item!.createdAt));
  });

  it('the external status time is when the status took its value: kept by repeats that bring no new status, through either publish statement', async () => {
    // A second instance on the same database knows none of this pair's writes, so its repeats go
    // through the full publish statement (ON CONFLICT); the first instance's go through the repeat
    // statement (the group commit remembers the pair).
    const other = await startHarness({ databaseUrl: h.databaseUrl, clock: h.clock });
    try {
      const { pt, ag } = await person();
      const { deliveryId, ev } = await published(pt, { external_status: 'firing' });
      const statusAt = async () => {
        const [item] = (await inbox(ag.token).listInbox({})).items;
        expect(item!.deliveryId).toBe(deliveryId);
        return { status: item!.externalStatus, at: timestampMs(item!.externalStatusAt), created: timestampMs(item!.createdAt) };
      };
      // The clock runs (an offset on real time): a time set by a call lies within the call.
      const during = async (call: () => Promise<void>) => {
        h.clock.advance(60_000);
        const from = h.clock.now().getTime();
        await call();
        return { from, to: h.clock.now().getTime() };
      };
      const repeat = (via: Harness, over: Record<string, unknown>) =>
        during(async () => {
          const r = await publish(via, pt.token, { ...ev, ...over });
          expect(r.status, r.text).toBe(200);
        });
      const setWithin = (at: number, w: { from: number; to: number }) => at >= w.from && at <= w.to;
      const first = await statusAt();
      expect(first).toMatchObject({ status: 'firing', at: first.created });

      await repeat(h, { external_status: 'firing' });
      expect(await statusAt()).toMatchObject({ status: 'firing', at: first.created });
      const pendingWindow = await repeat(other, { external_status: 'pending' });
      const pending = await statusAt();
      expect(pending.status).toBe('pending');
      expect(setWithin(pending.at, pendingWindow), `${pending.at} within ${JSON.stringify(pendingWindow)}`).toBe(true);
      await repeat(h, { external_status: undefined });
      expect(await statusAt()).toEqual(pending);
      await repeat(other, { external_status: 'pending' });
      expect(await statusAt()).toEqual(pending);
      const approvedWindow = await repeat(h, { external_status: 'approved' });
      const approved = await statusAt();
      expect(approved.status).toBe('approved');
      expect(setWithin(approved.at, approvedWindow)).toBe(true);

      const resolveWindow = await during(async () => {
        const r = await http(h, 'POST', `/api/v1/events/${deliveryId}/resolve`, { token: pt.token, body: {} });
        expect(r.status, r.text).toBe(200);
      });
      const resolved = await statusAt();
      expect(resolved.status).toBe('resolved');
      expect(setWithin(resolved.at, resolveWindow)).toBe(true);
      await repeat(other, { external_status: 'resolved' });
      await repeat(h, { external_status: undefined });
      expect(await statusAt()).toEqual(resolved);
    } finally {
      await other.close();
    }
  });

  it('works over gRPC and gRPC-Web too', async () => {
    const { pt, ag } = await person();
    await published(pt);
    for (const protocol of ['grpc', 'grpc-web'] as const) {
      const out = await inbox(ag.token, protocol).listInbox({ limit: 5 });
      expect(out.items).toHaveLength(1);
    }
  });
});

describe('ListInbox filters, pages and counts', () => {
  it('filters by severities, event type and unread, with counts of every matching row', async () => {
    const { pt, ag } = await person();
    await published(pt, { severity: 'critical', event_type: 'personal.a' });
    await published(pt, { severity: 'warn', event_type: 'personal.a' });
    await published(pt, { severity: 'info', event_type: 'personal.b' });
    const { deliveryId } = await published(pt, { severity: 'critical', event_type: 'personal.b' });
    const c = inbox(ag.token);
    const all = await c.listInbox({});
    expect([all.totalCount, all.unreadCount, all.items.length]).toEqual([4, 4, 4]);
    // Newest first.
    expect(all.items[0]!.deliveryId).toBe(deliveryId);

    const crit = await c.listInbox({ severities: ['critical'] });
    expect([crit.totalCount, crit.unreadCount]).toEqual([2, 4]);
    expect(crit.items.map((i) => i.severity)).toEqual(['critical', 'critical']);
    const two = await c.listInbox({ severities: ['critical', 'info'], eventType: 'personal.b' });
    expect(two.totalCount).toBe(2);
    expect(two.items.map((i) => `${i.severity}/${i.eventType}`)).toEqual(['critical/personal.b', 'info/personal.b']);
    const none = await c.listInbox({ eventType: 'personal.none' });
    expect([none.totalCount, none.items.length, none.unreadCount]).toEqual([0, 0, 4]);
    // An empty event type is no filter (a cleared field).
    expect((await c.listInbox({ eventType: '' })).totalCount).toBe(4);

    await c.markRead({ notificationId: all.items[0]!.notificationId });
    const unread = await c.listInbox({ unreadOnly: true });
    expect([unread.totalCount, unread.unreadCount, unread.items.length]).toEqual([3, 3, 3]);
    expect(unread.items.every((i) => !i.read)).toBe(true);
    const unreadCrit = await c.listInbox({ unreadOnly: true, severities: ['critical'] });
    expect([unreadCrit.totalCount, unreadCrit.items.length]).toEqual([1, 1]);
  });

  it('pages with the token: no row twice, none left out, counts the same on every page', async () => {
    const { pt, ag } = await person();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.unshift((await published(pt, { title: `Event ${i}` })).deliveryId);
    // Same created_at for two rows: ties go by id and pages stay stable.
    const c = inbox(ag.token);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await c.listInbox({ limit: 3, pageToken: token });
      expect([page.totalCount, page.unreadCount]).toEqual([7, 7]);
      seen.push(...page.items.map((i) => i.deliveryId!));
      token = page.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
    // Exactly full last page: no token after it.
    const six = await c.listInbox({ limit: 7 });
    expect(six.nextPageToken).toBeUndefined();
    expect((await c.listInbox({ limit: 500 })).items).toHaveLength(7);
  });

  it('default page is 50', async () => {
    const { ag } = await person();
    const user = ag.userId;
    await sql(
      `insert into notifications (id, user_id, type, title, created_at, updated_at)
       select gen_random_uuid(), ?, 'task', 'n' || g, now() - (g || ' seconds')::interval, now() from generate_series(1, 55) g`,
      [user],
    );
    const page = await inbox(ag.token).listInbox({});
    expect(page.items).toHaveLength(50);
    expect(page.totalCount).toBe(55);
    expect(page.nextPageToken).toBeDefined();
    // A notification that is not an event: no event fields, fire count 0.
    expect(page.items[0]).toMatchObject({ type: 'task', fireCount: 0, labels: {}, actions: [], supplements: [] });
    expect(page.items[0]!.deliveryId).toBeUndefined();
    expect(page.items[0]!.severity).toBeUndefined();
  });
});

describe('MarkRead and MarkAllRead', () => {
  it('MarkRead returns the read item and the unread count; again keeps the first read time', async () => {
    const { pt, ag } = await person();
    await published(pt);
    await published(pt);
    const c = inbox(ag.token);
    const [first] = (await c.listInbox({})).items;
    const out = await c.markRead({ notificationId: first!.notificationId });
    expect(out.item?.read).toBe(true);
    expect(out.item?.readAt).toBeDefined();
    expect(out.unreadCount).toBe(1);
    h.clock.advance(5000);
    const again = await c.markRead({ notificationId: first!.notificationId });
    expect(timestampMs(again.item?.readAt)).toBe(timestampMs(out.item?.readAt));
    expect(again.unreadCount).toBe(1);
  });

  it('MarkAllRead marks every unread row and reports how many changed', async () => {
    const { pt, ag } = await person();
    for (let i = 0; i < 3; i++) await published(pt);
    const c = inbox(ag.token);
    await c.markRead({ notificationId: (await c.listInbox({})).items[0]!.notificationId });
    expect((await c.markAllRead({})).markedCount).toBe(2);
    expect((await c.markAllRead({})).markedCount).toBe(0);
    const after = await c.listInbox({});
    expect(after.unreadCount).toBe(0);
    expect(after.items.every((i) => i.read)).toBe(true);
  });
});

describe('the wrong caller', () => {
  it("another user's notification answers not_found exactly like an unknown id, and is not marked", async () => {
    const alice = await person();
    const bob = await person();
    await published(alice.pt);
    const [aliceItem] = (await inbox(alice.ag.token).listInbox({})).items;
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const call of [
      (id: string) => inbox(bob.ag.token).getInboxItem({ notificationId: id }),
      (id: string) => inbox(bob.ag.token).markRead({ notificationId: id }),
    ]) {
      const theirs = await fails(call(aliceItem!.notificationId));
      const none = await fails(call(unknown));
      expect(theirs.code).toBe(Code.NotFound);
      expect([theirs.code, theirs.rawMessage, info(theirs)?.code]).toEqual([none.code, none.rawMessage, info(none)?.code]);
    }
    // Bob's lists never show it; Alice's row is still unread.
    expect((await inbox(bob.ag.token).listInbox({})).totalCount).toBe(0);
    expect((await inbox(bob.ag.token).markAllRead({})).markedCount).toBe(0);
    const [still] = (await inbox(alice.ag.token).listInbox({})).items;
    expect(still!.read).toBe(false);
  });

  it('a token without read:inbox / write:inbox is refused with permission_denied (missing_scope), nothing changed', async () => {
    const { pt, ag } = await person(['read:tasks']);
    await published(pt);
    const readOnly = await withToken(h, pt.user, ['read:inbox']);
    const [item] = (await inbox(readOnly.token).listInbox({})).items;
    for (const p of [
      () => inbox(ag.token).listInbox({}),
      () => inbox(ag.token).getInboxItem({ notificationId: item!.notificationId }),
      () => inbox(readOnly.token).markRead({ notificationId: item!.notificationId }),
      () => inbox(readOnly.token).markAllRead({}),
    ]) {
      const err = await fails(p());
      expect(err.code).toBe(Code.PermissionDenied);
      expect(info(err)?.code).toBe('missing_scope');
    }
    expect((await inbox(readOnly.token).listInbox({})).unreadCount).toBe(1);
  });

  it('no token, or a bad one: unauthenticated', async () => {
    expect((await fails(inbox(undefined).listInbox({}))).code).toBe(Code.Unauthenticated);
    expect((await fails(viewer('sk-svc-nope').getViewer({}))).code).toBe(Code.Unauthenticated);
  });
});

describe('bad input: invalid_argument with every violation, nothing changed', () => {
  it('ListInbox: limit 0 and 501, too many or unknown severities, a long event type, a forged page token', async () => {
    const { pt, ag } = await person();
    await published(pt);
    const c = inbox(ag.token);
    const cases: Array<[Parameters<typeof c.listInbox>[0], string[]]> = [
      [{ limit: 0 }, ['limit:too_small']],
      [{ limit: 501 }, ['limit:too_big']],
      [{ severities: ['critical', 'warn', 'info', 'success', 'info'] }, ['severities:too_many']],
      [{ severities: ['fatal'] }, ['severities.0:invalid_enum']],
      [{ eventType: 'x'.repeat(121) }, ['event_type:too_long']],
      [{ pageToken: 'not-a-token' }, ['page_token:invalid_page_token']],
      [{ pageToken: Buffer.from('2026-02-30 10:00:00+00|00000000-0000-4000-8000-000000000000').toString('base64url') }, ['page_token:invalid_page_token']],
      [{ limit: 0, severities: ['fatal'], pageToken: '!!' }, ['limit:too_small', 'page_token:invalid_page_token', 'severities.0:invalid_enum']],
    ];
    for (const [req, expected] of cases) {
      const err = await fails(c.listInbox(req));
      expect(err.code, JSON.stringify(req)).toBe(Code.InvalidArgument);
      expect(info(err)?.code).toBe('schema_invalid');
      expect(violations(err), JSON.stringify(req)).toEqual(expected);
    }
  });

  it('GetInboxItem / MarkRead: an id that is not a uuid, or none; nothing is marked', async () => {
    const { pt, ag } = await person();
    await published(pt);
    const c = inbox(ag.token);
    for (const id of ['nope', '']) {
      for (const p of [() => c.getInboxItem({ notificationId: id }), () => c.markRead({ notificationId: id })]) {
        const err = await fails(p());
        expect(err.code).toBe(Code.InvalidArgument);
        expect(violations(err)).toEqual([`notification_id:${id === '' ? 'invalid_format' : 'invalid_format'}`]);
      }
    }
    expect((await c.listInbox({})).unreadCount).toBe(1);
  });
});

describe('ViewerService.GetViewer', () => {
  it('names the caller with admin or member as the role; any scope will do', async () => {
    const member = await agent('member', ['read:tasks'], 'Mia Member');
    const admin = await agent('admin', undefined, 'Ada Admin');
    const superAdmin = await agent('super_admin');
    const hr = await agent('hr_admin');
    expect(await viewer(member.token).getViewer({})).toMatchObject({ userId: member.userId, email: member.email, name: 'Mia Member', role: 'member' });
    expect(await viewer(admin.token).getViewer({})).toMatchObject({ userId: admin.userId, name: 'Ada Admin', role: 'admin' });
    expect((await viewer(superAdmin.token).getViewer({})).role).toBe('admin');
    expect((await viewer(hr.token).getViewer({})).role).toBe('member');
  });
});
