// Connect-family clients against a harness: Connect and gRPC-Web over HTTP/1.1 on the main port,
// gRPC over h2c on the gRPC port. The bearer token travels in the `authorization` header.
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { ConnectError, createClient, type Client, type Interceptor, type Transport } from '@connectrpc/connect';
import { ValidationErrorDetailSchema } from '../../gen/fluxdesk/common/v1/errors_pb.js';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { EventService, InboundEventSchema, type InboundEvent } from '../../gen/fluxdesk/events/v1/events_pb.js';
import type { Harness } from './harness.js';
import { event, operator } from './harness.js';

export type Protocol = 'connect' | 'grpc' | 'grpc-web';
export const PROTOCOLS: Protocol[] = ['connect', 'grpc', 'grpc-web'];

export const bearer =
  (token: string | undefined): Interceptor =>
  (next) =>
  async (req) => {
    if (token !== undefined) req.header.set('authorization', `Bearer ${token}`);
    return next(req);
  };

/** Opened HTTP/2 sessions, closed by closeSessions() so the server can shut down. */
const sessions: Http2SessionManager[] = [];

export function transportFor(h: Harness, protocol: Protocol, interceptors: Interceptor[] = []): Transport {
  switch (protocol) {
    case 'connect':
      return createConnectTransport({ baseUrl: h.baseUrl, httpVersion: '1.1', interceptors });
    case 'grpc-web':
      return createGrpcWebTransport({ baseUrl: h.baseUrl, httpVersion: '1.1', interceptors });
    case 'grpc': {
      const sessionManager = new Http2SessionManager(h.grpcUrl);
      sessions.push(sessionManager);
      return createGrpcTransport({ baseUrl: h.grpcUrl, sessionManager, interceptors });
    }
  }
}

export function eventClient(h: Harness, protocol: Protocol, token?: string): Client<typeof EventService> {
  return createClient(EventService, transportFor(h, protocol, [bearer(token)]));
}

export function closeSessions(): void {
  for (const s of sessions.splice(0)) s.abort();
}

/** The harness's valid event as a proto InboundEvent (same fields, camelCase). */
export function protoEvent(h: Harness, over: MessageInitShape<typeof InboundEventSchema> = {}): InboundEvent {
  const e = event(h) as Record<string, string>;
  return create(InboundEventSchema, {
    specVersion: e.spec_version,
    eventId: e.event_id,
    eventType: e.event_type,
    severity: e.severity,
    title: e.title,
    occurredAt: e.occurred_at,
    ...over,
  });
}

/** A protobuf Timestamp in epoch milliseconds. */
export const timestampMs = (t: { seconds: bigint; nanos: number } | undefined): number => Number(t!.seconds) * 1000 + Math.floor(t!.nanos / 1e6);

/**
 * Runs `call` between two readings of the harness clock: a time the service stamped during the call
 * lies in [from, to] (epoch ms; `from` is floored to the whole second, as a surface may carry whole
 * seconds only). A single reading after the call can already be in the next second.
 */
export async function duringCall<T>(h: Harness, call: () => Promise<T>): Promise<{ out: T; from: number; to: number }> {
  const from = Math.floor(h.clock.now().getTime() / 1000) * 1000;
  const out = await call();
  return { out, from, to: h.clock.now().getTime() };
}

/** The ConnectError a call failed with (the test fails when the call succeeds). */
export async function fails(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}

/** `field:code` of every validation violation an error carries, sorted. */
export const violations = (err: ConnectError): string[] =>
  (err.findDetails(ValidationErrorDetailSchema)[0]?.violations ?? []).map((v) => `${v.field}:${v.code}`).sort();

/** A web session (the cookies a redeemed one-time sign-in link sets), to call Connect as the web app does. */
export interface WebSession {
  cookie: string;
  csrf: string;
}

/** Signs `email` in through a one-time link (what `fluxdesk login-link` makes and the browser redeems). */
export async function webSession(h: Harness, email: string): Promise<WebSession> {
  const { url } = await operator<{ url: string }>(h, 'web.create_login_link', { email });
  const res = await fetch(url, { method: 'POST', redirect: 'manual', headers: { origin: new URL(h.baseUrl).origin } });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  const jar = new Map(res.headers.getSetCookie().map((c) => c.split(';')[0]!.split('=') as [string, string]));
  const session = [...jar].find(([k]) => k.endsWith('fluxdesk_session'));
  const csrf = [...jar].find(([k]) => k.endsWith('fluxdesk_csrf'));
  if (!session || !csrf) throw new Error('sign-in set no session');
  return { cookie: `${session[0]}=${session[1]}; ${csrf[0]}=${csrf[1]}`, csrf: decodeURIComponent(csrf[1]) };
}

/** Sends a web session's cookie and its CSRF header, as the web app does. */
export const withSession =
  (s: WebSession): Interceptor =>
  (next) =>
  async (req) => {
    req.header.set('cookie', s.cookie);
    req.header.set('x-csrf-token', s.csrf);
    return next(req);
  };
