// OpenTelemetry traces (README "Tracing"), against a local OTLP/HTTP receiver:
// the service exports OTLP/JSON to POST /v1/traces. One publish with a `traceparent` is one trace:
// route span -> operation span -> PostgreSQL (and Redis) spans, under the caller's span. A webhook
// action callback carries a `traceparent` of the clicker's trace; a gRPC call joins the caller's
// trace too, and an MCP tool call is a span of its own. With no OTEL_* variable (or
// OTEL_SDK_DISABLED=true) no OpenTelemetry SDK module is loaded and nothing is exported (a child
// process, so the module list is its own; @opentelemetry/api alone may be: prom-client requires it).
import { randomBytes, randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createClient, type Interceptor } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { EventService } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import { createLogger } from '../../../src/deps.js';
import { bearer, closeSessions, protoEvent, transportFor } from '../../helpers/connect.js';
import { event, http as request, newPersonalToken, operator, publish, startHarness, type Harness } from '../../helpers/harness.js';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status?: { code?: number };
  service: string;
}

const SERVER = 2;
const CLIENT = 3;

/** OTLP/HTTP receiver: every span of every POST /v1/traces (JSON encoding). */
class OtlpReceiver {
  readonly spans: ExportedSpan[] = [];
  posts = 0;
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      this.posts++;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource?.attributes?.find((a: { key: string }) => a.key === 'service.name')?.value?.stringValue;
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            const attributes: Record<string, unknown> = {};
            for (const a of s.attributes ?? []) attributes[a.key] = Object.values(a.value ?? {})[0];
            this.spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              attributes,
              status: s.status,
              service,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  port = 0;
  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
  /** The spans of one trace once `ready` holds for them (the exporter sends every 50 ms here). */
  async trace(traceId: string, ready: (spans: ExportedSpan[]) => boolean): Promise<ExportedSpan[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const spans = this.spans.filter((s) => s.traceId === traceId);
      if (ready(spans)) return spans;
      if (Date.now() > deadline) throw new Error(`trace ${traceId} incomplete: ${JSON.stringify(spans.map((s) => [s.name, s.spanId, s.parentSpanId]))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;
/** A Connect client interceptor sending the caller's `traceparent`. */
const sendTraceparent =
  (value: string): Interceptor =>
  (next) =>
  async (req) => {
    req.header.set('traceparent', value);
    return next(req);
  };

/** The chain of spans from `span` up to the root of its trace (as exported). */
function ancestors(spans: ExportedSpan[], span: ExportedSpan): ExportedSpan[] {
  const out: ExportedSpan[] = [];
  for (let p = spans.find((s) => s.spanId === span.parentSpanId); p; p = spans.find((s) => s.spanId === p!.parentSpanId)) out.push(p);
  return out;
}

/**
 * Spans end (and are exported, in batches) in no fixed order: a trace is complete here once every
 * span named in `names` is in, and every span in descends from the caller's span without a gap.
 */
const complete =
  (callerSpan: string, ...names: string[]) =>
  (spans: ExportedSpan[]) =>
    names.every((n) => spans.some((s) => s.name === n)) && spans.every((s) => [s, ...ancestors(spans, s)].at(-1)!.parentSpanId === callerSpan);

const otlp = new OtlpReceiver();
const logLines: Array<Record<string, unknown>> = [];
let h: Harness;
let callbacks: http.Server;
let callbacksPort = 0;
const received: Array<{ url: string; headers: http.IncomingHttpHeaders }> = [];

beforeAll(async () => {
  await otlp.start();
  callbacks = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ url: req.url!, headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => callbacks.listen(0, '127.0.0.1', r));
  callbacksPort = (callbacks.address() as AddressInfo).port;
  // Log lines are captured to check they name the trace (createLogger: the service's own setup).
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logLines.push(JSON.parse(line));
      done();
    },
  });
  h = await startHarness({
    logger: createLogger('info', 1, sink),
    env: {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${otlp.port}/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'fluxdesk-tracing-test',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      // The webhook action receiver below is a local plain-http server.
      EGRESS_ALLOW_HOSTS: '127.0.0.1',
    },
  });
});

afterAll(async () => {
  closeSessions();
  await h?.close();
  callbacks?.closeAllConnections();
  await new Promise<void>((r) => (callbacks ? callbacks.close(() => r()) : r()));
  await otlp.stop();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;

describe('tracing on (OTLP/HTTP to a local receiver)', () => {
  it('a publish with a traceparent is one trace: caller -> route -> operation -> PostgreSQL and Redis', async () => {
    const { token } = await newPersonalToken(h);
    const traceId = hex(16);
    const callerSpan = hex(8);
    const res = await publish(h, token, event(h), { traceparent: traceparent(traceId, callerSpan) });
    expect(res.status).toBe(202);

    const spans = await otlp.trace(
      traceId,
      (s) => complete(callerSpan, 'POST /api/v1/events', 'events.publish')(s) && s.some((x) => x.attributes['db.system.name'] === 'postgresql'),
    );
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['fluxdesk-tracing-test']));

    // The route span: named by the route pattern, a server span whose parent is the caller's span.
    const route = spans.find((s) => s.name === 'POST /api/v1/events')!;
    expect(route.kind).toBe(SERVER);
    expect(route.parentSpanId).toBe(callerSpan);
    expect(route.attributes['http.route']).toBe('/api/v1/events');
    expect(route.attributes['http.response.status_code']).toBe(202);

    // The operation span: under the route span, naming the operation and the surface.
    const operation = spans.find((s) => s.name === 'events.publish')!;
    expect(ancestors(spans, operation).map((s) => s.spanId)).toContain(route.spanId);
    expect(operation.attributes).toMatchObject({ 'fluxdesk.operation': 'events.publish', 'fluxdesk.surface': 'rest' });

    // Its statements: client spans under the operation, SQL with placeholders only.
    const statements = spans.filter((s) => s.attributes['db.system.name'] === 'postgresql');
    for (const st of statements) {
      expect(st.kind).toBe(CLIENT);
      expect(ancestors(spans, st).map((s) => s.spanId)).toContain(operation.spanId);
    }
    // The event and its delivery are written (the hot path inserts through one CTE statement).
    expect(statements.some((s) => /\binsert into\b/i.test(String(s.attributes['db.query.text'])))).toBe(true);
    expect(statements.map((s) => String(s.attributes['db.query.text'])).join('\n')).not.toContain(token);

    // The rate-limit window: a Redis command under the operation.
    const redis = spans.filter((s) => s.attributes['db.system.name'] === 'redis');
    expect(redis.length).toBeGreaterThan(0);
    expect(ancestors(spans, redis[0]!).map((s) => s.spanId)).toContain(operation.spanId);

    // Every exported span of this trace descends from the caller's span.
    for (const s of spans) expect([s, ...ancestors(spans, s)].at(-1)!.parentSpanId).toBe(callerSpan);
  });

  it('a route span carries the path only: no query string, and no sign-in link secret', async () => {
    const traceId = hex(16);
    const callerSpan = hex(8);
    const secret = randomBytes(24).toString('base64url');
    const res = await request(h, 'GET', `/auth/link/${secret}?next=%2Finbox&code=abc`, { headers: { traceparent: traceparent(traceId, callerSpan) } });
    expect(res.status).toBeLessThan(500);
    const spans = await otlp.trace(traceId, (s) => s.some((x) => x.attributes['http.route'] === '/auth/link/:token'));
    const route = spans.find((s) => s.attributes['http.route'] === '/auth/link/:token')!;
    expect(route.attributes['url.path']).toBe('/auth/link/[redacted]');
    expect(JSON.stringify(spans)).not.toContain(secret);
    expect(JSON.stringify(spans)).not.toContain('code=abc');
  });

  it('statements and commands outside a trace (probes, background polling) make no trace of their own', async () => {
    const ready = await fetch(`${h.baseUrl}/api/v1/ready`);
    expect(ready.status).toBe(200);
    // Spans are exported in the order they end: once this later trace is in, any span of the probe is too.
    const { token } = await newPersonalToken(h);
    const traceId = hex(16);
    const callerSpan = hex(8);
    await publish(h, token, event(h), { traceparent: traceparent(traceId, callerSpan) });
    await otlp.trace(traceId, complete(callerSpan, 'POST /api/v1/events', 'events.publish'));
    expect(otlp.spans.filter((s) => s.parentSpanId === '' && s.attributes['db.system.name'] !== undefined)).toEqual([]);
    expect(otlp.spans.some((s) => s.name.includes('/api/v1/ready'))).toBe(false);
  });

  it('a refused call is one span outcome, not a fault; the error kind is on the operation span', async () => {
    const { token } = await newPersonalToken(h);
    const traceId = hex(16);
    const res = await publish(h, token, event(h, { severity: 'catastrophic' }), { traceparent: traceparent(traceId, hex(8)) });
    expect(res.status).toBe(400);
    const spans = await otlp.trace(traceId, (s) => s.some((x) => x.name === 'events.publish') && s.some((x) => x.name === 'POST /api/v1/events'));
    const operation = spans.find((s) => s.name === 'events.publish')!;
    expect(operation.attributes['fluxdesk.error.kind']).toBe('validation');
    expect(operation.attributes['error.type']).toBeDefined();
    expect(operation.status?.code ?? 0).not.toBe(2);
  });

  it('a webhook action callback carries a traceparent of the clicker trace (Connect RPC -> operation -> client span)', async () => {
    const inbound = await newPersonalToken(h);
    const { token: agentToken } = await operator<{ token: string }>(h, 'agent_tokens.create', { email: inbound.user.email });
    const actions = [{ label: 'Approve', action_type: 'webhook', webhook_url: 'https://hooks.example.test/approve' }];
    const pub = await publish(h, inbound.token, event(h, { actions }));
    expect(pub.status).toBe(202);
    const cbPath = `/cb/${randomUUID()}`;
    const stored = (await sql(`select actions from deliveries where id = ?`, [pub.body.deliveryId]))[0].actions as Array<Record<string, unknown>>;
    stored[0]!.webhook_url = `http://127.0.0.1:${callbacksPort}${cbPath}`;
    await sql(`update deliveries set actions = ?::jsonb where id = ?`, [JSON.stringify(stored), pub.body.deliveryId]);

    const traceId = hex(16);
    const callerSpan = hex(8);
    const account = createClient(AccountService, transportFor(h, 'connect', [bearer(agentToken), sendTraceparent(traceparent(traceId, callerSpan))]));
    const out = await account.clickAction({ deliveryId: pub.body.deliveryId, actionIndex: 0 });
    expect(out).toMatchObject({ status: 204, ok: true });

    const got = received.find((r) => r.url === cbPath)!;
    expect(got).toBeDefined();
    const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(got.headers.traceparent));
    expect(m).not.toBeNull();
    expect(m![1]).toBe(traceId);

    const spans = await otlp.trace(
      traceId,
      (s) =>
        s.some((x) => x.spanId === m![2]) &&
        complete(callerSpan, 'POST /fluxdesk.account.v1.AccountService/ClickAction', 'fluxdesk.account.v1.AccountService/ClickAction', 'actions.click')(s),
    );
    // The callback's parent is the client span of the POST, under the operation, the RPC and the route.
    const post = spans.find((s) => s.spanId === m![2])!;
    expect(post).toMatchObject({ name: 'POST', kind: CLIENT });
    expect(post.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 204,
      'url.full': `http://127.0.0.1:${callbacksPort}${cbPath}`,
    });
    const chain = ancestors(spans, post).map((s) => s.name);
    expect(chain).toEqual(
      expect.arrayContaining(['actions.click', 'fluxdesk.account.v1.AccountService/ClickAction', 'POST /fluxdesk.account.v1.AccountService/ClickAction']),
    );
    expect(ancestors(spans, post).at(-1)!.parentSpanId).toBe(callerSpan);
  });

  it('a gRPC call on the h2c listener joins the caller trace (RPC span under the traceparent)', async () => {
    const { token } = await newPersonalToken(h);
    const traceId = hex(16);
    const callerSpan = hex(8);
    const events = createClient(EventService, transportFor(h, 'grpc', [bearer(token), sendTraceparent(traceparent(traceId, callerSpan))]));
    await events.publish({ event: protoEvent(h) });
    const spans = await otlp.trace(traceId, complete(callerSpan, 'fluxdesk.events.v1.EventService/Publish', 'events.publish'));
    const rpc = spans.find((s) => s.name === 'fluxdesk.events.v1.EventService/Publish')!;
    expect(rpc.kind).toBe(SERVER);
    expect(rpc.parentSpanId).toBe(callerSpan);
    const operation = spans.find((s) => s.name === 'events.publish' && ancestors(spans, s).some((a) => a.spanId === rpc.spanId));
    expect(operation).toBeDefined();
  });

  it('an MCP tool call is a span under the POST /mcp route span, with its operation under it', async () => {
    const inbound = await newPersonalToken(h);
    const { token: agentToken } = await operator<{ token: string }>(h, 'agent_tokens.create', { email: inbound.user.email });
    const traceId = hex(16);
    const callerSpan = hex(8);
    const res = await request(h, 'POST', '/mcp', {
      token: agentToken,
      headers: { accept: 'application/json, text/event-stream', traceparent: traceparent(traceId, callerSpan) },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
    });
    expect(res.status).toBe(200);
    const spans = await otlp.trace(traceId, complete(callerSpan, 'POST /mcp', 'tools/call whoami'));
    const tool = spans.find((s) => s.name === 'tools/call whoami')!;
    expect(tool.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'whoami' });
    expect(ancestors(spans, tool).map((s) => s.name)).toContain('POST /mcp');
    const operation = spans.find((s) => s.attributes['fluxdesk.surface'] === 'mcp' && s.parentSpanId === tool.spanId);
    expect(operation).toBeDefined();
  });

  it('log lines written inside a span name its trace', async () => {
    const { token } = await newPersonalToken(h);
    const traceId = hex(16);
    // Fastify's own request lines (info) are written inside the route span.
    await publish(h, token, event(h), { traceparent: traceparent(traceId, hex(8)) });
    await otlp.trace(traceId, (s) => s.some((x) => x.name === 'events.publish'));
    expect(logLines.some((l) => l.trace_id === traceId && typeof l.span_id === 'string')).toBe(true);
  });
});

describe('tracing off', () => {
  it('with no OTEL_* variable, or OTEL_SDK_DISABLED=true, no OpenTelemetry module is loaded and nothing is exported', async () => {
    const spansBefore = otlp.spans.length;
    const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'tracing-off.fixture.ts');
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
      cwd: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..'),
      env: { ...env, TRACE_RECEIVER: `http://127.0.0.1:${otlp.port}/v1/traces` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code, err).toBe(0);
    const report = JSON.parse(out.trim().split('\n').at(-1)!) as { loaded: string[]; traced: boolean[]; published: number[] };
    expect(report.published).toEqual([202, 202]);
    expect(report.loaded).toEqual([]);
    expect(report.traced).toEqual([false, false]);
    // The child has exited (a running exporter would have flushed on close): nothing of it arrived.
    // (Counted by service: this file's own service may still flush a batch of an earlier test meanwhile.)
    expect(otlp.spans.slice(spansBefore).filter((s) => s.service !== 'fluxdesk-tracing-test')).toEqual([]);
  }, 60_000);
});
