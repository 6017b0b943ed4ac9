// InboxService.WatchInbox through the real Connect client (Connect over HTTP/1.1 through Fastify,
// as connect-web uses it; gRPC over h2c too): `ready` first, then an `upsert` within 1 s of each
// committed change (a REST publish, a dedup repeat, a resolve, a supplement, a read or unread mark), never
// another user's; two service instances sharing PostgreSQL and Redis deliver across instances; the
// embedded mode (no Redis) delivers in process; a drain ends the stream.
import { Code, ConnectError, createClient, type Client, type Interceptor } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { InboxService, ViewerService, type WatchInboxResponse } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { HEARTBEAT_MS, RECHECK_MS } from '../../../src/transports/connect/inbox-routes.js';
import { runOperation } from '../../../src/app/run-operation.js';
import { createLoginLink } from '../../../src/domain/web/create-login-link.js';
import { ManualClock } from '../../../src/infra/clock.js';
import { withToken, type AgentUser } from '../../helpers/agents.js';
import { bearer, closeSessions, transportFor, type Protocol } from '../../helpers/connect.js';
import { createDatabase, event, http, newPersonalToken, newUser, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';

let db: Awaited<ReturnType<typeof createDatabase>>;
let clock: ManualClock;
let a: Harness;
let b: Harness;
beforeAll(async () => {
  db = await createDatabase();
  clock = new ManualClock();
  [a, b] = await Promise.all([startHarness({ databaseUrl: db.url, clock }), startHarness({ databaseUrl: db.url, clock })]);
});
afterAll(async () => {
  closeSessions();
  await b?.close();
  await a?.close();
  await db?.drop();
});

const inbox = (h: Harness, token: string | undefined, protocol: Protocol = 'connect'): Client<typeof InboxService> =>
  createClient(InboxService, transportFor(h, protocol, [bearer(token)]));

/** A web session (the cookies a redeemed one-time sign-in link sets), sent as the web app sends it. */
interface WebSession {
  cookie: string;
  csrf: string;
}

async function signIn(h: Harness, email: string): Promise<WebSession> {
  // The operation behind `fluxdesk login-link --email E`, run as the operator.
  const { output } = await runOperation(h.svc.deps, createLoginLink, {
    surface: 'cli',
    requestId: 'test',
    input: { email },
    log: h.svc.deps.log,
    system: true,
  });
  const { url } = output as { url: string };
  const res = await fetch(url, { method: 'POST', redirect: 'manual', headers: { origin: new URL(h.baseUrl).origin } });
  expect(res.status).toBe(303);
  const jar = new Map(res.headers.getSetCookie().map((c) => c.split(';')[0]!.split('=') as [string, string]));
  const session = [...jar].find(([k]) => k.endsWith('fluxdesk_session'));
  const csrf = [...jar].find(([k]) => k.endsWith('fluxdesk_csrf'));
  expect(session && csrf).toBeTruthy();
  return { cookie: `${session![0]}=${session![1]}; ${csrf![0]}=${csrf![1]}`, csrf: decodeURIComponent(csrf![1]) };
}

const withSession =
  (s: WebSession, opts: { csrf: boolean } = { csrf: true }): Interceptor =>
  (next) =>
  async (req) => {
    req.header.set('cookie', s.cookie);
    if (opts.csrf) req.header.set('x-csrf-token', s.csrf);
    return next(req);
  };

/** An open WatchInbox stream: next() waits for the next message at most `ms`. */
interface Watch {
  next(ms?: number): Promise<WatchInboxResponse>;
  /** Resolves true when nothing arrives within `ms`. */
  quiet(ms: number): Promise<boolean>;
  close(): void;
}

const watches: Watch[] = [];
afterAll(() => {
  for (const w of watches) w.close();
});

function watch(h: Harness, token: string | undefined | Interceptor, protocol: Protocol = 'connect'): Watch {
  const ac = new AbortController();
  const client = typeof token === 'function' ? createClient(InboxService, transportFor(h, protocol, [token])) : inbox(h, token, protocol);
  const it = client.watchInbox({}, { signal: ac.signal })[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<WatchInboxResponse>> | undefined;
  const take = () => (pending ??= it.next());
  const w: Watch = {
    async next(ms = 1000) {
      const timer = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no message within ${ms} ms`)), ms));
      const r = await Promise.race([take(), timer]);
      pending = undefined;
      if (r.done) throw new Error('stream ended');
      return r.value;
    },
    async quiet(ms) {
      const r = await Promise.race([take().then(() => false), new Promise<true>((resolve) => setTimeout(() => resolve(true), ms))]);
      return r;
    },
    close: () => ac.abort(),
  };
  watches.push(w);
  return w;
}

async function fails(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}

async function person(h: Harness, scopes?: string[]): Promise<{ pt: TestToken; ag: AgentUser }> {
  const pt = await newPersonalToken(h);
  return { pt, ag: await withToken(h, pt.user, scopes) };
}

const upsert = (m: WatchInboxResponse) => {
  expect(m.change.case).toBe('upsert');
  return m.change.value as Extract<WatchInboxResponse['change'], { case: 'upsert' }>['value'];
};

/** Publishes through REST on `h` and returns the delivery id and when the answer came (ms). */
async function published(h: Harness, pt: TestToken, ev: Record<string, unknown>, status = 202): Promise<{ deliveryId: string; at: number }> {
  const r = await publish(h, pt.token, ev);
  expect(r.status, r.text).toBe(status);
  return { deliveryId: r.body.deliveryId, at: performance.now() };
}

describe('WatchInbox on one instance', () => {
  it('ready first (with the unread count), then each change as an upsert within 1 s', async () => {
    const { pt, ag } = await person(a);
    await published(a, pt, event(a, { title: 'Before the stream' }));
    const w = watch(a, ag.token);
    const ready = await w.next(5000);
    expect(ready.change.case).toBe('ready');
    expect(ready.unreadCount).toBe(1);

    // A new event.
    const ev = event(a, { title: 'Disk almost full', severity: 'critical', labels: { host: 'db1' } });
    const { deliveryId, at } = await published(a, pt, ev);
    const m1 = await w.next(1000);
    expect(performance.now() - at).toBeLessThan(1000);
    const first = upsert(m1);
    expect(first).toMatchObject({ deliveryId, title: 'Disk almost full', severity: 'critical', fireCount: 1, read: false, labels: { host: 'db1' } });
    expect(m1.unreadCount).toBe(2);

    // A dedup repeat: the same row, fire count 2, the new title.
    await published(a, pt, { ...ev, title: 'Disk full' }, 200);
    const repeat = upsert(await w.next(1000));
    expect(repeat).toMatchObject({ notificationId: first.notificationId, fireCount: 2, title: 'Disk full' });

    // A supplement, then a resolve.
    const s = await http(a, 'POST', `/api/v1/events/${deliveryId}/supplement`, { token: pt.token, body: { markdown_body: 'cleaned /tmp' } });
    expect(s.status, s.text).toBe(201);
    const supplemented = upsert(await w.next(1000));
    expect(supplemented.supplements.map((x) => x.markdownBody)).toEqual(['cleaned /tmp']);
    const r = await http(a, 'POST', `/api/v1/events/${deliveryId}/resolve`, { token: pt.token, body: { resolution_note: 'done' } });
    expect(r.status, r.text).toBe(200);
    const resolved = upsert(await w.next(1000));
    expect(resolved).toMatchObject({ notificationId: first.notificationId, externalStatus: 'resolved', resolutionNote: 'done' });
    expect(resolved.resolvedAt).toBeDefined();

    // Read marks: one, then all.
    const c = inbox(a, ag.token);
    await c.markRead({ notificationId: first.notificationId });
    const read = await w.next(1000);
    expect(upsert(read)).toMatchObject({ notificationId: first.notificationId, read: true });
    expect(read.unreadCount).toBe(1);
    await c.markAllRead({});
    const all = await w.next(1000);
    expect(upsert(all)).toMatchObject({ title: 'Before the stream', read: true });
    expect(all.unreadCount).toBe(0);
    // A mark that changes nothing tells nobody.
    await c.markRead({ notificationId: first.notificationId });
    expect(await w.quiet(300)).toBe(true);
    // Unread again (MarkUnread), then again: one upsert, read false.
    await c.markUnread({ notificationIds: [first.notificationId] });
    const unread = await w.next(1000);
    expect(upsert(unread)).toMatchObject({ notificationId: first.notificationId, read: false });
    expect(unread.unreadCount).toBe(1);
    await c.markUnread({ notificationIds: [first.notificationId] });
    expect(await w.quiet(300)).toBe(true);
    w.close();
  });

  it('MarkAllRead of 600 rows: an upsert for each (feed lines of 200 ids, reads of at most 500), the last with unread 0', async () => {
    const { ag } = await person(a);
    await a.svc.deps.orm.em
      .fork()
      .getConnection()
      .execute(
        `insert into notifications (id, user_id, type, title, created_at, updated_at)
         select gen_random_uuid(), ?, 'task', 'n' || g, now() - (g || ' seconds')::interval, now() from generate_series(1, 600) g`,
        [ag.userId],
      );
    const w = watch(a, ag.token);
    const ready = await w.next(5000);
    expect(ready.unreadCount).toBe(600);
    expect((await inbox(a, ag.token).markAllRead({})).markedCount).toBe(600);
    const seen = new Set<string>();
    let last: WatchInboxResponse | undefined;
    while (seen.size < 600) {
      last = await w.next(3000);
      const item = upsert(last);
      expect(item.read).toBe(true);
      seen.add(item.notificationId);
    }
    expect(last?.unreadCount).toBe(0);
    expect(await w.quiet(300)).toBe(true);
    w.close();
  });

  it("another user's publish never arrives", async () => {
    const alice = await person(a);
    const bob = await person(a);
    const w = watch(a, bob.ag.token);
    expect((await w.next(5000)).change.case).toBe('ready');
    await published(a, alice.pt, event(a, { title: 'For Alice only' }));
    await published(a, bob.pt, event(a, { title: 'For Bob' }));
    // Bob's own event is the next message: Alice's came neither before nor after it.
    expect(upsert(await w.next(1000)).title).toBe('For Bob');
    expect(await w.quiet(300)).toBe(true);
    w.close();
  });

  it('two streams of one user both get each change; gRPC streams too', async () => {
    const { pt, ag } = await person(a);
    const w1 = watch(a, ag.token);
    const w2 = watch(a, ag.token, 'grpc');
    expect((await w1.next(5000)).change.case).toBe('ready');
    expect((await w2.next(5000)).change.case).toBe('ready');
    const { deliveryId } = await published(a, pt, event(a));
    expect(upsert(await w1.next(1000)).deliveryId).toBe(deliveryId);
    expect(upsert(await w2.next(1000)).deliveryId).toBe(deliveryId);
    // One leaves; the other still gets changes.
    w1.close();
    const again = await published(a, pt, event(a));
    expect(upsert(await w2.next(1000)).deliveryId).toBe(again.deliveryId);
    w2.close();
  });

  it('refuses no token (unauthenticated) and a token without read:inbox (permission_denied)', async () => {
    const { ag } = await person(a, ['read:tasks']);
    const none = await fails(watch(a, undefined).next(5000));
    expect(none.code).toBe(Code.Unauthenticated);
    const noScope = await fails(watch(a, ag.token).next(5000));
    expect(noScope.code).toBe(Code.PermissionDenied);
    expect(noScope.findDetails(ErrorInfoSchema)[0]?.code).toBe('missing_scope');
  });
});

describe('heartbeats, and the end of the caller', () => {
  // Heartbeats every 25 s in service; 300 ms on an instance of its own here (same database and clock).
  let quick: Harness;
  beforeAll(async () => {
    quick = await startHarness({ databaseUrl: db.url, clock, watchTiming: { heartbeatMs: 300, recheckMs: RECHECK_MS } });
  });
  afterAll(async () => {
    await quick?.close();
  });

  it('an idle stream gets heartbeats with the unread count', async () => {
    const { pt, ag } = await person(quick);
    await published(quick, pt, event(quick));
    const w = watch(quick, ag.token);
    expect((await w.next(5000)).change.case).toBe('ready');
    for (let i = 0; i < 2; i++) {
      const m = await w.next(2000);
      expect(m.change.case).toBe('heartbeat');
      expect(m.unreadCount).toBe(1);
    }
    w.close();
  });

  it('a revoked agent token ends the stream with unauthenticated at the next heartbeat', async () => {
    const { ag } = await person(quick);
    const w = watch(quick, ag.token);
    expect((await w.next(5000)).change.case).toBe('ready');
    await createClient(AccountService, transportFor(quick, 'connect', [bearer(ag.token)])).revokeAgentToken({ tokenId: ag.tokenId });
    let err: ConnectError | undefined;
    for (let i = 0; i < 3 && !err; i++) {
      try {
        expect((await w.next(2000)).change.case).toBe('heartbeat');
      } catch (e) {
        err = ConnectError.from(e);
      }
    }
    expect(err?.code).toBe(Code.Unauthenticated);
    expect(err?.findDetails(ErrorInfoSchema)[0]?.code).toBe('token_revoked');
  });

  it('a web session (cookie + x-csrf-token) watches its own inbox; without the CSRF header it is refused; sign-out ends it', async () => {
    const { pt } = await person(quick);
    const s = await signIn(quick, pt.user.email);
    const viewer = await createClient(ViewerService, transportFor(quick, 'connect', [withSession(s)])).getViewer({});
    expect(viewer.userId).toBe(pt.user.userId);

    const noCsrf = await fails(watch(quick, withSession(s, { csrf: false })).next(5000));
    expect(noCsrf.code).toBe(Code.Unauthenticated);
    expect(noCsrf.findDetails(ErrorInfoSchema)[0]?.code).toBe('csrf_mismatch');

    const w = watch(quick, withSession(s));
    expect((await w.next(5000)).change.case).toBe('ready');
    const { deliveryId } = await published(quick, pt, event(quick));
    let m = await w.next(1000);
    while (m.change.case === 'heartbeat') m = await w.next(1000);
    expect(upsert(m).deliveryId).toBe(deliveryId);

    const out = await fetch(`${quick.baseUrl}/auth/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: s.cookie, origin: new URL(quick.baseUrl).origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=${encodeURIComponent(s.csrf)}`,
    });
    expect(out.status).toBe(303);
    let err: ConnectError | undefined;
    for (let i = 0; i < 3 && !err; i++) {
      try {
        expect((await w.next(2000)).change.case).toBe('heartbeat');
      } catch (e) {
        err = ConnectError.from(e);
      }
    }
    expect(err?.code).toBe(Code.Unauthenticated);
    expect(err?.findDetails(ErrorInfoSchema)[0]?.code).toBe('session_expired');
  });
});

describe('the end of the caller, at once (heartbeats 25 s apart, as in service)', () => {
  /** The stream's next message fails with unauthenticated and `code` within `ms` (no heartbeat comes first). */
  async function endsWith(w: Watch, code: string, ms = 2000): Promise<void> {
    const err = await fails(w.next(ms));
    expect(err.code).toBe(Code.Unauthenticated);
    expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBe(code);
  }

  it("sign-out on instance A ends that session's stream on instance B at once; the same user's other session keeps its stream", async () => {
    const { pt } = await person(a);
    const leaving = await signIn(a, pt.user.email);
    const staying = await signIn(a, pt.user.email);
    const gone = watch(b, withSession(leaving));
    const kept = watch(b, withSession(staying));
    expect((await gone.next(5000)).change.case).toBe('ready');
    expect((await kept.next(5000)).change.case).toBe('ready');

    const out = await fetch(`${a.baseUrl}/auth/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: leaving.cookie, origin: new URL(a.baseUrl).origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=${encodeURIComponent(leaving.csrf)}`,
    });
    expect(out.status).toBe(303);
    await endsWith(gone, 'session_expired');

    const { deliveryId } = await published(a, pt, event(a, { title: 'After the sign-out' }));
    expect(upsert(await kept.next(2000))).toMatchObject({ deliveryId, title: 'After the sign-out' });
    kept.close();
  });

  it('a revoked agent token ends its stream at once, before any row; another token of the user keeps its stream', async () => {
    const { pt, ag } = await person(a);
    const other = await withToken(a, pt.user);
    const gone = watch(a, ag.token);
    const kept = watch(b, other.token);
    expect((await gone.next(5000)).change.case).toBe('ready');
    expect((await kept.next(5000)).change.case).toBe('ready');
    await createClient(AccountService, transportFor(b, 'connect', [bearer(ag.token)])).revokeAgentToken({ tokenId: ag.tokenId });
    await endsWith(gone, 'token_revoked');
    const { deliveryId } = await published(a, pt, event(a));
    expect(upsert(await kept.next(2000)).deliveryId).toBe(deliveryId);
    kept.close();
  });

  it("offboarding ends the user's streams, by session and by token, at once", async () => {
    const { pt, ag } = await person(a);
    const s = await signIn(a, pt.user.email);
    const byToken = watch(a, ag.token);
    const bySession = watch(b, withSession(s));
    expect((await byToken.next(5000)).change.case).toBe('ready');
    expect((await bySession.next(5000)).change.case).toBe('ready');
    const admin = await withToken(a, await newUser(a, 'admin'));
    await createClient(AccountService, transportFor(a, 'connect', [bearer(admin.token)])).offboardUser({ email: pt.user.email });
    await endsWith(byToken, 'token_revoked');
    await endsWith(bySession, 'session_expired');
  });

  it('a session ended without a word to the feed gets no further row: the next change ends the stream instead', async () => {
    // Re-checked before rows when the last check is older than recheckMs: 0 on this instance, i.e. before every batch.
    const rechecking = await startHarness({ databaseUrl: db.url, clock, watchTiming: { heartbeatMs: HEARTBEAT_MS, recheckMs: 0 } });
    try {
      const { pt } = await person(a);
      const s = await signIn(a, pt.user.email);
      const w = watch(rechecking, withSession(s));
      expect((await w.next(5000)).change.case).toBe('ready');
      // As if the feed lost the sign-out's message (Redis pub/sub delivers at most once).
      await a.svc.deps.orm.em.getConnection().execute(`update web_sessions set revoked_at = now() where user_id = ?`, [pt.user.userId]);
      await published(a, pt, event(a, { title: 'Not for a signed-out browser' }));
      await endsWith(w, 'session_expired');
    } finally {
      await rechecking.close();
    }
  });
});

describe('WatchInbox across two instances sharing Redis', () => {
  it('a publish on A reaches a stream on B, and a read mark on B reaches a stream on A', async () => {
    const { pt, ag } = await person(a);
    const onB = watch(b, ag.token);
    const onA = watch(a, ag.token);
    expect((await onB.next(5000)).change.case).toBe('ready');
    expect((await onA.next(5000)).change.case).toBe('ready');
    const { deliveryId, at } = await published(a, pt, event(a, { title: 'Cross-instance' }));
    const viaB = upsert(await onB.next(1000));
    expect(performance.now() - at).toBeLessThan(1000);
    expect(viaB).toMatchObject({ deliveryId, title: 'Cross-instance' });
    expect(upsert(await onA.next(1000)).deliveryId).toBe(deliveryId);
    await inbox(b, ag.token).markRead({ notificationId: viaB.notificationId });
    expect(upsert(await onA.next(1000))).toMatchObject({ notificationId: viaB.notificationId, read: true });
    expect(upsert(await onB.next(1000))).toMatchObject({ notificationId: viaB.notificationId, read: true });
    onA.close();
    onB.close();
  });
});

describe('WatchInbox, embedded mode (no Redis: the in-process feed)', () => {
  let e: Harness;
  beforeAll(async () => {
    e = await startHarness({ mode: 'embedded' });
  }, 60_000);
  afterAll(async () => {
    await e?.close();
  });

  it('a publish arrives as an upsert within 1 s, and a drain ends the stream', async () => {
    const { pt, ag } = await person(e);
    const w = watch(e, ag.token);
    expect((await w.next(10_000)).change.case).toBe('ready');
    const { deliveryId, at } = await published(e, pt, event(e));
    expect(upsert(await w.next(1000)).deliveryId).toBe(deliveryId);
    expect(performance.now() - at).toBeLessThan(1000);
    // Stopping the service drains: the stream ends at once instead of holding the stop.
    const started = performance.now();
    await e.close();
    expect(performance.now() - started).toBeLessThan(4000);
    await expect(w.next(1000)).rejects.toThrow(/stream ended/);
  });
});
