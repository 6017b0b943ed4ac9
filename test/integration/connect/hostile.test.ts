// Hostile input on the Connect surfaces:
// bounded bodies (resource_exhausted; an unauthenticated body is refused before it is read),
// malformed binary protobuf, invalid UTF-8 and deep nesting are invalid_argument — never internal,
// HTTP 500 or grpc-status 13 — on both listeners (Fastify on PORT: Connect and gRPC-Web over
// HTTP/1.1; the h2c listener on GRPC_PORT: gRPC, Connect, gRPC-Web).
import http from 'node:http';
import http2 from 'node:http2';
import { gzipSync } from 'node:zlib';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventService, PublishRequestSchema } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { Health, HealthCheckResponse_ServingStatus } from '../../../gen/grpc/health/v1/health_pb.js';
import { ErrorInfoSchema, ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { bearer, closeSessions, protoEvent, transportFor } from '../../helpers/connect.js';
import { newPersonalToken, operator, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { adminTools, sql } from '../../helpers/tools.js';

let h: Harness;
let tok: TestToken;
beforeAll(async () => {
  h = await startHarness();
  tok = await newPersonalToken(h);
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const PUBLISH = '/fluxdesk.events.v1.EventService/Publish';
const CREATE_ITEM = '/fluxdesk.catalog.v1.CatalogItemService/CreateItem';
const MB = 1024 * 1024;

async function connectErrorOf(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}

async function storedCount(eventId: string): Promise<number> {
  const rows = await sql<{ n: string }>(h, 'select count(*) as n from deliveries where event_id = ?', [eventId]);
  return Number(rows[0]!.n);
}

/** One gRPC / gRPC-Web length-prefixed frame. */
function frame(payload: Uint8Array, flags = 0, declaredLength = payload.length): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(declaredLength, 1);
  return Buffer.concat([head, payload]);
}

const publishBytes = (over: Parameters<typeof protoEvent>[1] = {}) =>
  toBinary(PublishRequestSchema, create(PublishRequestSchema, { event: protoEvent(h, over) }));

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** gRPC trailers (h2), or the gRPC-Web trailer frame, or the Connect error body's code. */
  grpcStatus?: string;
  connectCode?: string;
  /** Connect error bodies: the ErrorInfo detail's code. */
  errorInfo?: string;
}

/** A raw request over HTTP/1.1 (the Fastify listener) or h2c (the gRPC listener). */
async function raw(listener: 'http1' | 'h2', path: string, contentType: string, body: Uint8Array, headers: Record<string, string> = {}): Promise<Answer> {
  const res = listener === 'http1' ? await h1(path, contentType, body, headers) : await h2(path, contentType, body, headers);
  return decorate(res, contentType);
}

function decorate(res: Omit<Answer, 'grpcStatus' | 'connectCode'> & { trailers?: Record<string, string> }, contentType: string): Answer {
  const out: Answer = { status: res.status, headers: res.headers, body: res.body };
  if (contentType.startsWith('application/grpc-web')) {
    // The last frame carries the trailers (flag 0x80).
    let off = 0;
    while (off + 5 <= res.body.length) {
      const flags = res.body.readUInt8(off);
      const len = res.body.readUInt32BE(off + 1);
      const data = res.body.subarray(off + 5, off + 5 + len);
      if (flags & 0x80) out.grpcStatus = /grpc-status:\s*(\d+)/i.exec(data.toString('utf8'))?.[1];
      off += 5 + len;
    }
    out.grpcStatus ??= res.headers['grpc-status'];
  } else if (contentType.startsWith('application/grpc')) {
    out.grpcStatus = res.trailers?.['grpc-status'] ?? res.headers['grpc-status'];
  } else if (res.body.length > 0 && String(res.headers['content-type']).startsWith('application/json')) {
    const err = JSON.parse(res.body.toString('utf8')) as { code?: string; details?: Array<{ type: string; value: string }> };
    out.connectCode = err.code;
    const info = err.details?.find((d) => d.type === ErrorInfoSchema.typeName);
    if (info) out.errorInfo = fromBinary(ErrorInfoSchema, Buffer.from(info.value, 'base64')).code;
  }
  return out;
}

function h1(path: string, contentType: string, body: Uint8Array, headers: Record<string, string>): Promise<Answer & { trailers?: Record<string, string> }> {
  const url = new URL(h.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path, method: 'POST', headers: { 'content-type': contentType, 'content-length': String(body.length), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers as Record<string, string>,
            body: Buffer.concat(chunks),
            trailers: res.trailers as Record<string, string>,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function h2(path: string, contentType: string, body: Uint8Array, headers: Record<string, string>): Promise<Answer & { trailers?: Record<string, string> }> {
  const session = http2.connect(h.grpcUrl);
  return new Promise<Answer & { trailers?: Record<string, string> }>((resolve, reject) => {
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': contentType, te: 'trailers', ...headers });
    let status = 0;
    let head: Record<string, string> = {};
    let trailers: Record<string, string> | undefined;
    const chunks: Buffer[] = [];
    stream.on('response', (hd) => {
      status = Number(hd[':status']);
      head = hd as unknown as Record<string, string>;
    });
    stream.on('trailers', (t) => (trailers = t as unknown as Record<string, string>));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve({ status, headers: head, body: Buffer.concat(chunks), trailers }));
    stream.on('error', reject);
    stream.end(body);
  }).finally(() => session.close());
}

/** Every binary route to Publish: Connect binary (both listeners), gRPC-Web (both), gRPC (h2c). */
const BINARY_ROUTES: Array<{ name: string; listener: 'http1' | 'h2'; contentType: string; enveloped: boolean }> = [
  { name: 'Connect binary on PORT', listener: 'http1', contentType: 'application/proto', enveloped: false },
  { name: 'Connect binary on GRPC_PORT', listener: 'h2', contentType: 'application/proto', enveloped: false },
  { name: 'gRPC-Web on PORT', listener: 'http1', contentType: 'application/grpc-web+proto', enveloped: true },
  { name: 'gRPC-Web on GRPC_PORT', listener: 'h2', contentType: 'application/grpc-web+proto', enveloped: true },
  { name: 'gRPC on GRPC_PORT', listener: 'h2', contentType: 'application/grpc', enveloped: true },
];

/** invalid_argument in the route's own terms: HTTP 400 for Connect, grpc-status 3 for gRPC / gRPC-Web. */
function expectCode(route: { enveloped: boolean }, res: Answer, code: 'invalid_argument' | 'unauthenticated' | 'resource_exhausted'): void {
  const grpc = { invalid_argument: '3', unauthenticated: '16', resource_exhausted: '8' }[code];
  const httpStatus = { invalid_argument: 400, unauthenticated: 401, resource_exhausted: 429 }[code];
  if (route.enveloped) {
    expect(res.status).toBe(200);
    expect(res.grpcStatus).toBe(grpc);
  } else {
    expect(res.status).toBe(httpStatus);
    expect(res.connectCode).toBe(code);
  }
}

// A protobuf body for PublishRequest (field 1 `event`: message; InboundEvent field 5 `title`: string).
const MALFORMED: Array<[string, () => Uint8Array]> = [
  ['garbage bytes', () => Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02])],
  ['a truncated varint', () => Uint8Array.from([0x08, 0xff, 0xff])],
  ['a wrong wire type (event as a varint)', () => Uint8Array.from([0x08, 0x01])],
  ['a length that runs past the end', () => Uint8Array.from([0x0a, 0x7f, 0x01, 0x02])],
  ['an unknown wire type (6)', () => Uint8Array.from([0x0e, 0x01])],
  ['a field number 0', () => Uint8Array.from([0x00, 0x01])],
  [
    'an invalid UTF-8 string (title)',
    () => {
      const ev = publishBytes({ title: 'Build XX on main' });
      const b = Buffer.from(ev);
      const at = b.indexOf('XX');
      b[at] = 0xc3; // lead byte without its continuation
      b[at + 1] = 0x28;
      return b;
    },
  ],
];

describe('malformed binary protobuf is invalid_argument, never internal', () => {
  for (const route of BINARY_ROUTES) {
    describe(route.name, () => {
      it.each(MALFORMED)('%s (valid token): invalid_argument, nothing stored', async (_name, make) => {
        const payload = make();
        const body = route.enveloped ? frame(payload) : payload;
        const res = await raw(route.listener, PUBLISH, route.contentType, body, { authorization: `Bearer ${tok.token}` });
        expectCode(route, res, 'invalid_argument');
        if (!route.enveloped) expect(res.errorInfo).toBe('malformed_body');
      });

      it('garbage without a token: unauthenticated (the body is never parsed)', async () => {
        const payload = Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff]);
        const res = await raw(route.listener, PUBLISH, route.contentType, route.enveloped ? frame(payload) : payload);
        expectCode(route, res, 'unauthenticated');
      });

      it('a large body with an unknown token of the right shape: unauthenticated (looked up before reading)', async () => {
        const payload = new Uint8Array(100 * 1024).fill(0xff);
        const res = await raw(route.listener, PUBLISH, route.contentType, route.enveloped ? frame(payload) : payload, {
          authorization: `Bearer svc-in-pers-${'x'.repeat(32)}`,
        });
        expectCode(route, res, 'unauthenticated');
      });
    });
  }

  const ENVELOPED = BINARY_ROUTES.filter((r) => r.enveloped);
  describe.each(ENVELOPED)('$name framing', (route) => {
    it('a frame whose length promises more than is sent: invalid_argument', async () => {
      const payload = publishBytes();
      const res = await raw(route.listener, PUBLISH, route.contentType, frame(payload, 0, payload.length + 100), { authorization: `Bearer ${tok.token}` });
      expectCode(route, res, 'invalid_argument');
    });

    it('a frame cut inside its 5-byte prefix: invalid_argument', async () => {
      const res = await raw(route.listener, PUBLISH, route.contentType, Uint8Array.from([0, 0, 0]), { authorization: `Bearer ${tok.token}` });
      expectCode(route, res, 'invalid_argument');
    });

    it('the compressed flag without a grpc-encoding: invalid_argument, nothing stored', async () => {
      const eventId = `ev-cflag-${route.listener}-${route.contentType.length}-${Date.now()}`;
      const res = await raw(route.listener, PUBLISH, route.contentType, frame(publishBytes({ eventId }), 1), { authorization: `Bearer ${tok.token}` });
      expectCode(route, res, 'invalid_argument');
      expect(await storedCount(eventId)).toBe(0);
    });

    it('grpc-encoding gzip with bytes that are not gzip: invalid_argument', async () => {
      const res = await raw(route.listener, PUBLISH, route.contentType, frame(Uint8Array.from([1, 2, 3, 4, 5, 6, 7]), 1), {
        authorization: `Bearer ${tok.token}`,
        'grpc-encoding': 'gzip',
      });
      expectCode(route, res, 'invalid_argument');
    });

    it('grpc-encoding gzip cut short: invalid_argument', async () => {
      const gz = gzipSync(publishBytes());
      const res = await raw(route.listener, PUBLISH, route.contentType, frame(gz.subarray(0, gz.length - 12), 1), {
        authorization: `Bearer ${tok.token}`,
        'grpc-encoding': 'gzip',
      });
      expectCode(route, res, 'invalid_argument');
    });

    it('a well-formed frame still publishes (control)', async () => {
      const eventId = `ev-ok-${route.listener}-${route.contentType.length}-${Date.now()}`;
      const res = await raw(route.listener, PUBLISH, route.contentType, frame(publishBytes({ eventId })), { authorization: `Bearer ${tok.token}` });
      expect(res.grpcStatus).toBe('0');
      expect(await storedCount(eventId)).toBe(1);
    });
  });
});

describe('a streaming call (grpc.reflection, bidi) reads its messages after it began', () => {
  it.each(MALFORMED.slice(0, 4))('%s: invalid_argument', async (_name, make) => {
    const res = await raw('h2', '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo', 'application/grpc', frame(make()));
    expect(res.grpcStatus).toBe('3');
  });
});

describe('Connect JSON with invalid UTF-8 is invalid_argument (as REST rejects it), not stored as U+FFFD', () => {
  it.each(['http1', 'h2'] as const)('on %s', async (listener) => {
    const eventId = `ev-utf8-${listener}-${Date.now()}`;
    const ev = { ...protoEventJson(eventId), title: 'Build XX on main' };
    const b = Buffer.from(JSON.stringify({ event: ev }));
    const at = b.indexOf('XX');
    b[at] = 0xff;
    b[at + 1] = 0xfe;
    const res = await raw(listener, PUBLISH, 'application/json', b, { authorization: `Bearer ${tok.token}` });
    expect(res.status).toBe(400);
    expect(res.connectCode).toBe('invalid_argument');
    expect(res.errorInfo).toBe('malformed_json');
    expect(await storedCount(eventId)).toBe(0);
  });

  it('the same body with valid UTF-8 publishes (control)', async () => {
    const eventId = `ev-utf8-ok-${Date.now()}`;
    const res = await raw(
      'http1',
      PUBLISH,
      'application/json',
      Buffer.from(JSON.stringify({ event: { ...protoEventJson(eventId), title: 'Build ✓ on main' } })),
      { authorization: `Bearer ${tok.token}` },
    );
    expect(res.status).toBe(200);
    expect(await storedCount(eventId)).toBe(1);
  });
});

function protoEventJson(eventId: string): Record<string, unknown> {
  const e = protoEvent(h, { eventId });
  return { specVersion: e.specVersion, eventId: e.eventId, eventType: e.eventType, severity: e.severity, title: e.title, occurredAt: e.occurredAt };
}

describe('deep nesting through Connect (CatalogItemService.CreateItem use_cases: google.protobuf.Value)', () => {
  const nestedJson = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  /**
   * Value{list_value: ListValue{values: [Value{...}]}} nested `depth` times, in binary. Built as
   * the outer prefixes followed by the core (concatenating level by level would copy O(n^2) bytes).
   */
  function nestedValueBinary(depth: number): Buffer {
    const core = Buffer.from([0x08, 0x00]); // Value{null_value: NULL_VALUE}
    const prefixes: Buffer[] = [];
    let inner = core.length;
    for (let i = 0; i < depth; i++) {
      const list = 1 + varint(inner).length + inner; // ListValue.values = 1
      prefixes.push(Buffer.concat([Buffer.from([0x32]), varint(list), Buffer.from([0x0a]), varint(inner)])); // Value.list_value = 6
      inner = 1 + varint(list).length + list;
    }
    return Buffer.concat([...prefixes.reverse(), core]);
  }
  function varint(n: number): Buffer {
    const out: number[] = [];
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n);
    return Buffer.from(out);
  }

  it.each([200, 5_000, 100_000])('JSON nested %i deep: invalid_argument, nothing stored', async (depth) => {
    const tools = await adminTools(h);
    const name = `deep-json-${depth}-${Date.now()}`;
    const body = `{"name":"${name}","type":"other","useCases":[${nestedJson(depth)}]}`;
    for (const listener of ['http1', 'h2'] as const) {
      const res = await raw(listener, CREATE_ITEM, 'application/json', Buffer.from(body), { authorization: `Bearer ${tools.token}` });
      expect(res.status).toBe(400);
      expect(res.connectCode).toBe('invalid_argument');
      expect(res.errorInfo).toBe('too_deep');
    }
    expect(await sql(h, 'select 1 from catalog_items where name = ?', [name])).toHaveLength(0);
  });

  it.each([
    ['a Value with no kind', Buffer.from([0x42, 0x00])],
    ['a NaN number value', Buffer.concat([Buffer.from([0x42, 0x09, 0x11]), Buffer.from(new Float64Array([NaN]).buffer)])],
  ])('use_cases holding %s (valid on the wire, no JSON form): invalid_argument on every binary protocol', async (_name, useCases) => {
    const tools = await adminTools(h);
    const name = `nokind-${Date.now()}`;
    const msg = Buffer.concat([Buffer.from([0x0a, name.length]), Buffer.from(name), Buffer.from([0x1a, 0x05, ...Buffer.from('other')]), useCases]);
    for (const route of BINARY_ROUTES) {
      const res = await raw(route.listener, CREATE_ITEM, route.contentType, route.enveloped ? frame(msg) : msg, { authorization: `Bearer ${tools.token}` });
      expectCode(route, res, 'invalid_argument');
      if (!route.enveloped) expect(res.errorInfo).toBe('schema_invalid');
    }
    expect(await sql(h, 'select 1 from catalog_items where name = ?', [name])).toHaveLength(0);
  });

  it.each([200, 5_000, 50_000])('binary nested %i deep: invalid_argument on every binary protocol', async (depth) => {
    const tools = await adminTools(h);
    const name = `deep-bin-${depth}-${Date.now()}`;
    const nameField = Buffer.concat([Buffer.from([0x0a]), varint(Buffer.byteLength(name)), Buffer.from(name)]); // name = 1
    const typeField = Buffer.from([0x1a, 0x05, ...Buffer.from('other')]); // type = 3
    const value = nestedValueBinary(depth);
    const useCases = Buffer.concat([Buffer.from([0x42]), varint(value.length), value]); // use_cases = 8
    const msg = Buffer.concat([nameField, typeField, useCases]);
    for (const route of BINARY_ROUTES) {
      const res = await raw(route.listener, CREATE_ITEM, route.contentType, route.enveloped ? frame(msg) : msg, { authorization: `Bearer ${tools.token}` });
      expectCode(route, res, 'invalid_argument');
      if (!route.enveloped) expect(res.errorInfo).toBe('too_deep');
    }
    expect(await sql(h, 'select 1 from catalog_items where name = ?', [name])).toHaveLength(0);
  });
});

describe('body bounds (readMaxBytes): resource_exhausted, nothing stored', () => {
  /** Connect JSON and binary, gRPC-Web on PORT; gRPC, Connect and gRPC-Web on GRPC_PORT. */
  const CLIENTS: Array<[string, (token: string) => ReturnType<typeof createClient<typeof EventService>>]> = [
    ['Connect JSON on PORT', (t) => createClient(EventService, createConnectTransport({ baseUrl: h.baseUrl, httpVersion: '1.1', interceptors: [bearer(t)] }))],
    [
      'Connect binary on PORT',
      (t) => createClient(EventService, createConnectTransport({ baseUrl: h.baseUrl, httpVersion: '1.1', useBinaryFormat: true, interceptors: [bearer(t)] })),
    ],
    ['gRPC-Web on PORT', (t) => createClient(EventService, createGrpcWebTransport({ baseUrl: h.baseUrl, httpVersion: '1.1', interceptors: [bearer(t)] }))],
    ['gRPC on GRPC_PORT', (t) => createClient(EventService, createGrpcTransport({ baseUrl: h.grpcUrl, sessionManager: session(), interceptors: [bearer(t)] }))],
    [
      'Connect binary on GRPC_PORT',
      (t) =>
        createClient(
          EventService,
          createConnectTransport({ baseUrl: h.grpcUrl, httpVersion: '2', sessionManager: session(), useBinaryFormat: true, interceptors: [bearer(t)] }),
        ),
    ],
    [
      'gRPC-Web on GRPC_PORT',
      (t) => createClient(EventService, createGrpcWebTransport({ baseUrl: h.grpcUrl, httpVersion: '2', sessionManager: session(), interceptors: [bearer(t)] })),
    ],
  ];
  const managers: Http2SessionManager[] = [];
  function session(): Http2SessionManager {
    // A client session may buffer 10 MB by default: the 10 MB body would be refused by the client's own Node.
    const m = new Http2SessionManager(h.grpcUrl, undefined, { maxSessionMemory: 64 });
    managers.push(m);
    return m;
  }
  afterAll(() => {
    for (const m of managers) m.abort();
  });

  describe.each(CLIENTS)('%s', (_name, client) => {
    it('10 MB to Publish with a valid token: resource_exhausted', async () => {
      const eventId = `ev-10mb-${_name.replace(/\W/g, '')}-${Date.now()}`;
      const err = await connectErrorOf(client(tok.token).publish({ event: protoEvent(h, { eventId, summary: 'x'.repeat(10 * MB) }) }));
      expect(err.code, err.message).toBe(Code.ResourceExhausted);
      expect(err.findDetails(ErrorInfoSchema)[0]?.code).toBe('payload_too_large');
      expect(await storedCount(eventId)).toBe(0);
    });

    it('just over 256 KB to Publish: resource_exhausted; just under still reaches validation', async () => {
      const over = await connectErrorOf(client(tok.token).publish({ event: protoEvent(h, { summary: 'x'.repeat(257 * 1024) }) }));
      expect(over.code).toBe(Code.ResourceExhausted);
      const under = await connectErrorOf(client(tok.token).publish({ event: protoEvent(h, { summary: 'x'.repeat(200 * 1024) }) }));
      expect(under.code).toBe(Code.InvalidArgument); // summary is at most 500 chars
    });

    it('PublishBulk takes up to 512 KB (one event plus 100 recipients), not more', async () => {
      const tools = await adminTools(h);
      const recipients = [{ type: 'email', email: 'a@example.test' }];
      const under = await connectErrorOf(client(tools.token).publishBulk({ event: protoEvent(h, { summary: 'x'.repeat(400 * 1024) }), recipients }));
      expect(under.code).toBe(Code.InvalidArgument);
      const over = await connectErrorOf(client(tools.token).publishBulk({ event: protoEvent(h, { summary: 'x'.repeat(600 * 1024) }), recipients }));
      expect(over.code).toBe(Code.ResourceExhausted);
    });
  });

  it('other methods take up to 1 MB (AccountService.IssuePersonalToken)', async () => {
    const account = (token: string) =>
      createClient(AccountService, createConnectTransport({ baseUrl: h.baseUrl, httpVersion: '1.1', interceptors: [bearer(token)] }));
    const t = `sk-svc-${'a'.repeat(32)}`;
    // A Content-Length over the lookup threshold: the token is looked up first (unknown: unauthenticated)...
    expect((await connectErrorOf(account(t).issuePersonalToken({ label: 'x'.repeat(2 * MB) }))).code).toBe(Code.Unauthenticated);
    // ...and a live one is bounded.
    const agent = await newAgentToken();
    expect((await connectErrorOf(account(agent).issuePersonalToken({ label: 'x'.repeat(2 * MB) }))).code).toBe(Code.ResourceExhausted);
    expect((await connectErrorOf(account(agent).issuePersonalToken({ label: 'x'.repeat(900 * 1024) }))).code).toBe(Code.InvalidArgument);
  });
});

async function newAgentToken(): Promise<string> {
  return (await operator<{ token: string }>(h, 'agent_tokens.create', { email: tok.user.email })).token;
}

describe('64 MB bodies are refused without being read', () => {
  /**
   * Sends a gRPC frame that declares `declared` bytes over h2c, writing 1 MB chunks until the
   * server answers; returns the trailers' grpc-status and how much the client got to send.
   */
  function grpcUpload(headers: Record<string, string>, declared = 64 * MB): Promise<{ grpcStatus?: string; sent: number; ms: number }> {
    const started = Date.now();
    const session = http2.connect(h.grpcUrl);
    return new Promise<{ grpcStatus?: string; sent: number; ms: number }>((resolve, reject) => {
      session.on('error', reject);
      const stream = session.request({ ':method': 'POST', ':path': PUBLISH, 'content-type': 'application/grpc', te: 'trailers', ...headers });
      let sent = 0;
      let answered = false;
      let grpcStatus: string | undefined;
      const done = () => resolve({ grpcStatus, sent, ms: Date.now() - started });
      stream.on('response', (hd) => (grpcStatus ??= hd['grpc-status'] as string | undefined));
      stream.on('trailers', (t) => (grpcStatus = t['grpc-status'] as string | undefined));
      stream.on('close', () => {
        answered = true;
        done();
      });
      stream.on('error', () => undefined);
      stream.resume();
      const chunk = Buffer.alloc(MB, 0x5a);
      const head = Buffer.alloc(5);
      head.writeUInt32BE(declared, 1);
      stream.write(head);
      const pump = () => {
        while (!answered && sent < declared) {
          sent += chunk.length;
          if (!stream.write(chunk)) {
            stream.once('drain', pump);
            return;
          }
        }
        if (!answered) stream.end();
      };
      pump();
    }).finally(() => session.close());
  }

  it('unauthenticated 64 MB gRPC frame: unauthenticated at once, not read', async () => {
    const r = await grpcUpload({});
    expect(r.grpcStatus).toBe('16');
    expect(r.sent).toBeLessThan(8 * MB);
    expect(r.ms).toBeLessThan(5_000);
  });

  it('64 MB gRPC frame with an unknown token of the right shape: unauthenticated, not read', async () => {
    const r = await grpcUpload({ authorization: `Bearer svc-in-pers-${'q'.repeat(32)}` });
    expect(r.grpcStatus).toBe('16');
    expect(r.sent).toBeLessThan(8 * MB);
  });

  it('64 MB gRPC frame with a valid token: resource_exhausted from the frame prefix, not read', async () => {
    const r = await grpcUpload({ authorization: `Bearer ${tok.token}` });
    expect(r.grpcStatus).toBe('8');
    expect(r.sent).toBeLessThan(8 * MB);
  });

  it('unauthenticated 64 MB Connect POST over HTTP/1.1: 401 before the body is read', async () => {
    const url = new URL(h.baseUrl);
    const started = Date.now();
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: PUBLISH,
          method: 'POST',
          headers: { 'content-type': 'application/proto', 'content-length': String(64 * MB) },
        },
        (r) => {
          let body = '';
          r.on('data', (c) => (body += c));
          r.on('end', () => {
            resolve({ status: r.statusCode!, body });
            req.destroy();
          });
        },
      );
      req.on('error', () => undefined);
      req.write(Buffer.alloc(64 * 1024));
      setTimeout(() => reject(new Error('no answer')), 5_000);
    });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).code).toBe('unauthenticated');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('the service still answers afterwards', async () => {
    const health = createClient(Health, createConnectTransport({ baseUrl: h.baseUrl, httpVersion: '1.1' }));
    expect((await health.check({ service: '' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    const grpcHealth = createClient(Health, createGrpcTransport({ baseUrl: h.grpcUrl }));
    expect((await grpcHealth.check({ service: '' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  });
});

describe('control characters and unpaired surrogates through Connect: invalid_characters, nothing stored', () => {
  it.each(PROTOCOL_CLIENTS())('NUL in the title over %s', async (_name, client) => {
    const eventId = `ev-nul-${_name.replace(/\W/g, '')}-${Date.now()}`;
    const err = await connectErrorOf(client(tok.token).publish({ event: protoEvent(h, { eventId, title: 'a\u0000b' }) }));
    expect(err.code).toBe(Code.InvalidArgument);
    const [detail] = err.findDetails(ValidationErrorDetailSchema);
    expect(detail?.violations).toContainEqual(expect.objectContaining({ field: 'event.title', code: 'invalid_characters' }));
    expect(await storedCount(eventId)).toBe(0);
  });

  it('a lone surrogate in a label over Connect JSON (a JSON escape)', async () => {
    const eventId = `ev-sur-${Date.now()}`;
    const body = JSON.stringify({ event: { ...protoEventJson(eventId), labels: { repo: 'x' } } }).replace('"x"', '"\\ud800"');
    const res = await raw('http1', PUBLISH, 'application/json', Buffer.from(body), { authorization: `Bearer ${tok.token}` });
    expect(res.status).toBe(400);
    expect(res.connectCode).toBe('invalid_argument');
    expect(res.errorInfo).toBe('schema_invalid');
    expect(res.body.toString()).toContain('{"field":"labels.repo","code":"invalid_characters"');
    expect(await storedCount(eventId)).toBe(0);
  });

  it.each(BINARY_ROUTES)('a surrogate encoded in binary (ED A0 80) over $name: invalid UTF-8, invalid_argument', async (route) => {
    const eventId = `ev-sur-bin-${route.listener}-${route.contentType.length}-${Date.now()}`;
    const b = Buffer.from(publishBytes({ eventId, title: 'Build XYZ on main' }));
    const at = b.indexOf('XYZ');
    b.set([0xed, 0xa0, 0x80], at);
    const res = await raw(route.listener, PUBLISH, route.contentType, route.enveloped ? frame(b) : b, { authorization: `Bearer ${tok.token}` });
    expectCode(route, res, 'invalid_argument');
    expect(await storedCount(eventId)).toBe(0);
  });
});

function PROTOCOL_CLIENTS(): Array<[string, (token: string) => ReturnType<typeof createClient<typeof EventService>>]> {
  return (['connect', 'grpc', 'grpc-web'] as const).flatMap(
    (p) =>
      [[p, (t: string) => createClient(EventService, transportFor(h, p, [bearer(t)]))]] as Array<
        [string, (token: string) => ReturnType<typeof createClient<typeof EventService>>]
      >,
  );
}
