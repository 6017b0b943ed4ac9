// Webhook actions (SPEC "Action callback (outgoing)", "Action callback body", ActionButton,
// Authentication 9, Limits: callback timeout 5 s) through AccountService.ClickAction.
//
// Receivers are local plain-http servers on 127.0.0.1. Validation only accepts https webhook URLs
// that are not loopback, so each test publishes a valid https action and then points the stored
// action at its local receiver with SQL; the service runs with EGRESS_ALLOW_HOSTS=127.0.0.1 and a
// callback client that exempts 127.0.0.1 from the https-only and private-address rules, its deadline
// cut to 300 ms (the tests of long answers use the real 5 s, to tell the body cap from the deadline).
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { ErrorInfoSchema, ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { bearer, closeSessions, transportFor, type Protocol } from '../../helpers/connect.js';
import { event, newPersonalToken, operator, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { createEgressClient, DEFAULT_EGRESS_TIMEOUT_MS } from '../../../src/infra/http-egress/egress-client.js';
import type { CallbackSender } from '../../../src/domain/actions/callback-sender.js';

const TIMEOUT_MS = 300;
/** The service's callback client: the short deadline, or (`sender = withRealDeadline`) the real one. */
const withShortDeadline = createEgressClient({ allowHosts: ['127.0.0.1'], timeoutMs: TIMEOUT_MS });
const withRealDeadline = createEgressClient({ allowHosts: ['127.0.0.1'] });
let sender: CallbackSender = withShortDeadline;
const callbackSender: CallbackSender = { post: (url, body, headers) => sender.post(url, body, headers) };
/** Announced by /huge: far more than any client should read for a status. */
const HUGE_BODY_BYTES = 100 * 1024 * 1024;

/** A long answer's stream, seen from the receiver: what it wrote, and when and how the response closed. */
interface Stream {
  written: number;
  closedAt?: number;
  /** The receiver wrote the whole body (false: the client closed the connection first). */
  finished?: boolean;
}
const streams = new Map<string, Stream>();

/** 200 at once, then the body (endless, or `total` bytes) as fast as the client reads it. */
function streamBody(path: string, res: http.ServerResponse, total: number): void {
  const st: Stream = { written: 0 };
  streams.set(path, st);
  res.on('close', () => {
    st.closedAt = Date.now();
    st.finished = res.writableFinished;
  });
  res.writeHead(200, { 'content-type': 'application/octet-stream', ...(Number.isFinite(total) ? { 'content-length': String(total) } : {}) });
  const chunk = Buffer.alloc(16 * 1024, 0x61);
  const pump = () => {
    while (!res.destroyed) {
      const n = Math.min(chunk.length, total - st.written);
      st.written += n;
      if (st.written >= total) return void res.end(chunk.subarray(0, n));
      if (!res.write(chunk.subarray(0, n))) return void res.once('drain', pump);
    }
  };
  pump();
}

async function closedStream(path: string, waitMs = 10_000): Promise<Required<Stream>> {
  const until = Date.now() + waitMs;
  for (;;) {
    const st = streams.get(path);
    if (st?.closedAt !== undefined) return st as Required<Stream>;
    if (Date.now() > until) throw new Error(`the answer to ${path} never closed`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

let h: Harness;
let receiver: http.Server;
let receiverPort: number;
let receiverConnections = 0;
const received: Received[] = [];

beforeAll(async () => {
  h = await startHarness({ env: { EGRESS_ALLOW_HOSTS: '127.0.0.1' }, callbackSender });
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url!, headers: req.headers, raw: Buffer.concat(chunks) });
      if (req.url!.startsWith('/hang')) return;
      if (req.url!.startsWith('/endless')) return streamBody(req.url!, res, Number.POSITIVE_INFINITY);
      if (req.url!.startsWith('/huge')) return streamBody(req.url!, res, HUGE_BODY_BYTES);
      if (req.url!.startsWith('/teapot')) return void res.writeHead(418).end();
      if (req.url!.startsWith('/redirect')) return void res.writeHead(307, { location: 'http://10.0.0.1/internal' }).end();
      res.writeHead(204).end();
    });
  });
  receiver.on('connection', () => receiverConnections++);
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverPort = (receiver.address() as AddressInfo).port;
});
afterAll(async () => {
  closeSessions();
  receiver?.closeAllConnections();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;

async function connectErrorOf(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}

interface Recipient {
  inbound: TestToken;
  agentToken: string;
  account: Client<typeof AccountService>;
}

/** A user with a personal token (the sender) and an agent token (the clicker: the same user). */
async function recipient(protocol: Protocol = 'connect'): Promise<Recipient> {
  const inbound = await newPersonalToken(h);
  const { token } = await operator<{ token: string }>(h, 'agent_tokens.create', { email: inbound.user.email });
  return { inbound, agentToken: token, account: createClient(AccountService, transportFor(h, protocol, [bearer(token)])) };
}

const ACTIONS = [
  { label: 'Approve', action_type: 'webhook', webhook_url: 'https://hooks.example.test/approve' },
  { label: 'Open', action_type: 'url', url: 'https://example.test/item/1' },
];

/** Publishes an event with ACTIONS; `webhookPath` repoints action 0 at the local receiver. */
async function deliveryWithActions(r: Recipient, webhookPath?: string, actions: unknown[] = ACTIONS): Promise<{ deliveryId: string; eventType: string }> {
  const ev = event(h, { actions });
  const res = await publish(h, r.inbound.token, ev);
  expect(res.status).toBe(202);
  if (webhookPath !== undefined) {
    const stored = (await sql(`select actions from deliveries where id = ?`, [res.body.deliveryId]))[0].actions as Array<Record<string, unknown>>;
    stored[0]!.webhook_url = `http://127.0.0.1:${receiverPort}${webhookPath}`;
    await sql(`update deliveries set actions = ?::jsonb where id = ?`, [JSON.stringify(stored), res.body.deliveryId]);
  }
  return { deliveryId: res.body.deliveryId, eventType: String(ev.event_type) };
}

const takeReceived = (path: string) => received.filter((x) => x.url === path);

describe('ClickAction', () => {
  it('POSTs the signed callback body with the spec headers; the receiver verifies the signature', async () => {
    const r = await recipient();
    const path = `/ok/${randomUUID()}`;
    const { deliveryId, eventType } = await deliveryWithActions(r, path);
    const secret = (await r.account.listPersonalTokens({})).tokens.find((t) => t.tokenId === r.inbound.tokenId)!.callbackSecret;

    const before = h.clock.now().getTime();
    const out = await r.account.clickAction({ deliveryId, actionIndex: 0 });
    const after = h.clock.now().getTime();
    expect(out).toMatchObject({ status: 204, ok: true });
    expect(out.error).toBeUndefined();

    const [got] = takeReceived(path);
    expect(got).toBeDefined();
    expect(got!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(got!.headers['user-agent']).toBe('fluxdesk-Inbox-Callback/v2');
    expect(got!.headers['content-length']).toBe(String(got!.raw.length));

    // What a receiver does: HMAC-SHA256 over the raw bytes, constant-time compare.
    const signature = String(got!.headers['x-svc-signature']);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(got!.raw).digest('hex')}`);
    expect(expected.length === signature.length && timingSafeEqual(expected, Buffer.from(signature))).toBe(true);
    // A receiver holding another secret rejects it.
    expect(`sha256=${createHmac('sha256', 'f'.repeat(64)).update(got!.raw).digest('hex')}`).not.toBe(signature);

    const body = JSON.parse(got!.raw.toString('utf8'));
    expect(Object.keys(body).sort()).toEqual(['action_index', 'action_label', 'clicked_at', 'clicked_by', 'delivery_id', 'event_type']);
    expect(body).toMatchObject({
      delivery_id: deliveryId,
      action_label: 'Approve',
      action_index: 0,
      event_type: eventType,
      clicked_by: { email: r.inbound.user.email, name: 'Test User' },
    });
    expect(body.clicked_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const clickedAt = Date.parse(body.clicked_at);
    expect(clickedAt).toBeGreaterThanOrEqual(before);
    expect(clickedAt).toBeLessThanOrEqual(after);

    const audit = await sql(
      `select actor_user_id, token_id, target_type, target_id, source, summary from audit_log where action = 'inbound.action.clicked' and target_id = ?`,
      [deliveryId],
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_user_id: r.inbound.user.userId,
      token_id: r.inbound.tokenId,
      target_type: 'delivery',
      source: 'connect',
      summary: { action_index: 0, action_label: 'Approve', status: 204, ok: true, error: null, target_host: `127.0.0.1:${receiverPort}` },
    });
  });

  it('after a rotation the callback is signed with the new secret', async () => {
    const r = await recipient();
    const path = `/ok/${randomUUID()}`;
    const { deliveryId } = await deliveryWithActions(r, path);
    const { callbackSecret } = await r.account.rotatePersonalToken({ tokenId: r.inbound.tokenId });
    await r.account.clickAction({ deliveryId, actionIndex: 0 });
    const [got] = takeReceived(path);
    expect(got!.headers['x-svc-signature']).toBe(`sha256=${createHmac('sha256', callbackSecret).update(got!.raw).digest('hex')}`);
  });

  it("passes the receiver's status through for the toast (418 is not ok)", async () => {
    const r = await recipient();
    const { deliveryId } = await deliveryWithActions(r, `/teapot/${randomUUID()}`);
    const out = await r.account.clickAction({ deliveryId, actionIndex: 0 });
    expect(out).toMatchObject({ status: 418, ok: false });
    expect(out.error).toBeUndefined();
  });

  it('a hanging receiver is cut at the deadline: status 0, error timeout', async () => {
    const r = await recipient();
    const path = `/hang/${randomUUID()}`;
    const { deliveryId } = await deliveryWithActions(r, path);
    const started = Date.now();
    const out = await r.account.clickAction({ deliveryId, actionIndex: 0 });
    const took = Date.now() - started;
    expect(out).toMatchObject({ status: 0, ok: false, error: 'timeout' });
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
    expect(took).toBeLessThan(3000);
    expect(takeReceived(path)).toHaveLength(1);
    const audit = await sql(`select summary from audit_log where action = 'inbound.action.clicked' and target_id = ?`, [deliveryId]);
    expect(audit[0].summary).toMatchObject({ status: 0, ok: false, error: 'timeout' });
  });

  it.each([
    ['an endless body', '/endless'],
    ['a huge body', '/huge'],
  ])('%s: the status is reported at once; the client hangs up without reading it all, long before the deadline', async (_name, prefix) => {
    // The real deadline: the old way (read the body to its end or to the deadline) would close only at 5 s.
    sender = withRealDeadline;
    try {
      const r = await recipient();
      const path = `${prefix}/${randomUUID()}`;
      const { deliveryId } = await deliveryWithActions(r, path);
      const started = Date.now();
      const out = await r.account.clickAction({ deliveryId, actionIndex: 0 });
      expect(out).toMatchObject({ status: 200, ok: true });
      expect(out.error).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(DEFAULT_EGRESS_TIMEOUT_MS);

      const stream = await closedStream(path);
      // The client hung up: the receiver never got to write its whole body.
      expect(stream.finished).toBe(false);
      expect(stream.closedAt - started).toBeLessThan(DEFAULT_EGRESS_TIMEOUT_MS);
      const audit = await sql(`select summary from audit_log where action = 'inbound.action.clicked' and target_id = ?`, [deliveryId]);
      expect(audit[0].summary).toMatchObject({ status: 200, ok: true, error: null });
    } finally {
      sender = withShortDeadline;
    }
  });

  it('a redirect (here to a private address) is reported, not followed', async () => {
    const r = await recipient();
    const path = `/redirect/${randomUUID()}`;
    const { deliveryId } = await deliveryWithActions(r, path);
    const before = received.length;
    const out = await r.account.clickAction({ deliveryId, actionIndex: 0 });
    expect(out).toMatchObject({ status: 307, ok: false });
    expect(out.error).toBeUndefined();
    await new Promise((res) => setTimeout(res, 50));
    expect(received.slice(before).map((x) => x.url)).toEqual([path]);
  });

  it.each([
    ['a private literal', 'https://10.0.0.5/x'],
    ['the metadata address', 'https://169.254.169.254/latest/meta-data/'],
    ['a CGNAT literal', 'https://100.64.0.9/hook'],
    ['an IPv4-mapped private literal', 'https://[::ffff:192.168.1.10]/hook'],
    ['a unique-local IPv6 literal', 'https://[fd00::5]/hook'],
  ])('%s is blocked_target, without any connection attempt', async (_name, url) => {
    const r = await recipient();
    const { deliveryId } = await deliveryWithActions(r, undefined, [{ label: 'Go', action_type: 'webhook', webhook_url: url }]);
    const connectionsBefore = receiverConnections;
    const started = Date.now();
    const out = await r.account.clickAction({ deliveryId, actionIndex: 0 });
    // A connection attempt to an unroutable address would have ended in `timeout` after 300 ms.
    expect(out).toMatchObject({ status: 0, ok: false, error: 'blocked_target' });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
    expect(receiverConnections).toBe(connectionsBefore);
  });

  it('plain http to a host that is not allowlisted is blocked_target', async () => {
    const r = await recipient();
    const { deliveryId } = await deliveryWithActions(r, '/ok/x');
    await sql(`update deliveries set actions = jsonb_set(actions, '{0,webhook_url}', to_jsonb(?::text)) where id = ?`, [
      `http://localhost:${receiverPort}/ok/x`,
      deliveryId,
    ]);
    const before = receiverConnections;
    expect(await r.account.clickAction({ deliveryId, actionIndex: 0 })).toMatchObject({ status: 0, ok: false, error: 'blocked_target' });
    expect(receiverConnections).toBe(before);
  });

  it("another user's delivery is NotFound, and nothing is sent", async () => {
    const owner = await recipient();
    const path = `/ok/${randomUUID()}`;
    const { deliveryId } = await deliveryWithActions(owner, path);
    const stranger = await recipient();
    const err = await connectErrorOf(stranger.account.clickAction({ deliveryId, actionIndex: 0 }));
    expect(err.code).toBe(Code.NotFound);
    expect((await connectErrorOf(stranger.account.clickAction({ deliveryId: randomUUID(), actionIndex: 0 }))).code).toBe(Code.NotFound);
    expect(takeReceived(path)).toHaveLength(0);
  });

  it('a url action is FailedPrecondition not_webhook_action', async () => {
    const r = await recipient();
    const { deliveryId } = await deliveryWithActions(r);
    const err = await connectErrorOf(r.account.clickAction({ deliveryId, actionIndex: 1 }));
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBe('not_webhook_action');
  });

  it('an index past the actions, a negative index or a bad id is InvalidArgument', async () => {
    const r = await recipient();
    const { deliveryId } = await deliveryWithActions(r);
    const past = await connectErrorOf(r.account.clickAction({ deliveryId, actionIndex: 2 }));
    expect(past.code).toBe(Code.InvalidArgument);
    expect(past.findDetails(ValidationErrorDetailSchema)[0]?.violations.map((v) => [v.field, v.code])).toEqual([['action_index', 'out_of_range']]);
    expect((await connectErrorOf(r.account.clickAction({ deliveryId, actionIndex: -1 }))).code).toBe(Code.InvalidArgument);
    const bad = await connectErrorOf(r.account.clickAction({ deliveryId: 'not-a-uuid', actionIndex: 0 }));
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.findDetails(ValidationErrorDetailSchema)[0]?.violations.map((v) => v.field)).toEqual(['delivery_id']);
  });

  it('a delivery without actions has no index 0', async () => {
    const r = await recipient();
    const res = await publish(h, r.inbound.token, event(h));
    expect((await connectErrorOf(r.account.clickAction({ deliveryId: res.body.deliveryId, actionIndex: 0 }))).code).toBe(Code.InvalidArgument);
  });

  it.each(['grpc', 'grpc-web'] as Protocol[])('works over %s', async (protocol) => {
    const r = await recipient(protocol);
    const path = `/ok/${randomUUID()}`;
    const { deliveryId } = await deliveryWithActions(r, path);
    expect(await r.account.clickAction({ deliveryId, actionIndex: 0 })).toMatchObject({ status: 204, ok: true });
    expect(takeReceived(path)).toHaveLength(1);
  });
});

describe('ClickAction of a sender no longer active', () => {
  type Change = (r: Recipient) => Promise<unknown>;
  const revoke: Change = (r) => r.account.deletePersonalToken({ tokenId: r.inbound.tokenId });
  const disable: Change = (r) => r.account.disablePersonalToken({ tokenId: r.inbound.tokenId });
  // What the daily inactivity scan writes after 12 months without use.
  const expire: Change = (r) => sql(`update inbound_tokens set status = 'auto_expired' where id = ?`, [r.inbound.tokenId]);
  const archiveIntegrator: Change = async (r) => {
    const slug = `gone-${randomUUID().slice(0, 8)}`;
    const [row] = await sql(
      `insert into integrators (id, slug, name, allowed_event_prefix, created_at, archived_at) values (gen_random_uuid(), ?, 'Gone', ?, now(), now()) returning id`,
      [slug, `${slug}.`],
    );
    await sql(`update inbound_tokens set integrator_id = ? where id = ?`, [row.id, r.inbound.tokenId]);
  };

  /** Clicks action 0 and expects the sender_inactive refusal. */
  async function expectRefused(r: Recipient, deliveryId: string): Promise<void> {
    const err = await connectErrorOf(r.account.clickAction({ deliveryId, actionIndex: 0 }));
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBe('sender_inactive');
    // What the web app shows in its toast.
    expect(err.rawMessage).toBe("The sender's integration is no longer active.");
  }

  it.each([
    ['revoked', revoke, 'token_revoked'],
    ['disabled by its owner', disable, 'token_disabled'],
    ['expired', expire, 'token_expired'],
    ['of an archived integrator', archiveIntegrator, 'integrator_archived'],
  ] as const)('a token %s: refused before any request, and audited; the same click fired while it was active', async (_name, change, reason) => {
    const r = await recipient();
    const path = `/ok/${randomUUID()}`;
    const { deliveryId } = await deliveryWithActions(r, path);
    // Control: while the sender is active the click calls back.
    expect(await r.account.clickAction({ deliveryId, actionIndex: 0 })).toMatchObject({ status: 204, ok: true });
    expect(takeReceived(path)).toHaveLength(1);

    await change(r);
    const connectionsBefore = receiverConnections;
    await expectRefused(r, deliveryId);
    expect(takeReceived(path)).toHaveLength(1);
    expect(receiverConnections).toBe(connectionsBefore);

    const audit = await sql(
      `select actor_user_id, token_id, target_type, source, summary from audit_log where action = 'inbound.action.refused' and target_id = ?`,
      [deliveryId],
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_user_id: r.inbound.user.userId,
      token_id: r.inbound.tokenId,
      target_type: 'delivery',
      source: 'connect',
      summary: { action_index: 0, action_label: 'Approve', target_host: `127.0.0.1:${receiverPort}`, reason },
    });
    // Only the click that went out is recorded as clicked.
    expect(await sql(`select 1 from audit_log where action = 'inbound.action.clicked' and target_id = ?`, [deliveryId])).toHaveLength(1);
  });

  it('a token enabled again calls back again', async () => {
    const r = await recipient();
    const path = `/ok/${randomUUID()}`;
    const { deliveryId } = await deliveryWithActions(r, path);
    await disable(r);
    await expectRefused(r, deliveryId);
    await r.account.enablePersonalToken({ tokenId: r.inbound.tokenId });
    expect(await r.account.clickAction({ deliveryId, actionIndex: 0 })).toMatchObject({ status: 204, ok: true });
    expect(takeReceived(path)).toHaveLength(1);
  });

  it('a url action of a revoked sender is still not_webhook_action (nothing to call back)', async () => {
    const r = await recipient();
    const { deliveryId } = await deliveryWithActions(r);
    await revoke(r);
    const err = await connectErrorOf(r.account.clickAction({ deliveryId, actionIndex: 1 }));
    expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBe('not_webhook_action');
  });
});
