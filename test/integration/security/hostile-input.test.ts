// Hostile input at the HTTP edge: control characters and unpaired
// surrogates in text, Object.prototype member names as field names, deep nesting, chunked bodies.
// Every case is refused in its surface's documented envelope, stores nothing, and never answers 5xx.
import { request } from 'node:http';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboundEventSchema } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import { ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { agents } from '../../helpers/agents.js';
import { closeSessions, eventClient, transportFor } from '../../helpers/connect.js';
import { event, http, newPersonalToken, publish, publishLegacy, startHarness, type Harness } from '../../helpers/harness.js';
import { adminTools, sql } from '../../helpers/tools.js';
import { mcp } from '../mcp/rpc.js';

let h: Harness;
const { agent } = agents(() => h);
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

const NUL = 'a\u0000b';
const LONE_HIGH = 'x\ud800y';
const LONE_LOW = '\udc00';

const deliveriesOf = async (tokenId: string, eventId: string) =>
  (await sql(h, `select count(*)::int as n from deliveries where token_id = ? and event_id = ?`, [tokenId, eventId]))[0].n as number;

function expectProblem(r: { status: number; headers: Headers; body: any }, status: number) {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ status, type: expect.any(String), title: expect.any(String), requestId: expect.any(String) });
}

describe('control characters and unpaired surrogates: 400 invalid_characters, the field named, nothing stored', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['NUL in title', { title: NUL }, 'title'],
    ['an escape (U+001B) in summary', { summary: 'ok \u001b[31m red' }, 'summary'],
    ['a lone high surrogate in a label value', { labels: { team: LONE_HIGH } }, 'labels.team'],
    ['a lone low surrogate in an action label', { actions: [{ label: LONE_LOW, action_type: 'url', url: 'https://example.com/x' }] }, 'actions[0].label'],
  ];
  for (const [name, over, field] of cases) {
    it(`REST /api/v1/events: ${name}`, async () => {
      const t = await newPersonalToken(h);
      const ev = event(h, over);
      const r = await publish(h, t.token, ev);
      expectProblem(r, 400);
      expect(r.body.errors).toContainEqual(expect.objectContaining({ field, code: 'invalid_characters' }));
      expect(r.body.fieldErrors[field]).toHaveLength(1);
      expect(await deliveriesOf(t.tokenId, ev.event_id as string)).toBe(0);
    });
  }

  it('a control character in a label KEY is refused too, the key named', async () => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, event(h, { labels: { 'te\u0007am': 'x' } }));
    expectProblem(r, 400);
    expect(r.body.errors).toContainEqual(expect.objectContaining({ field: 'labels.te\u0007am', code: 'invalid_characters' }));
  });

  it('tab, line feed and carriage return stay allowed; paired surrogates (emoji) are kept', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h, { title: 'tab\there 🚀', summary: 'line one\r\nline two\n' });
    const r = await publish(h, t.token, ev);
    expect(r.status).toBe(202);
    expect(r.body.title).toBe('tab\there 🚀');
  });

  it('legacy endpoint: 400 schema_invalid with reason invalid_characters', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h, { title: NUL });
    const r = await publishLegacy(h, t.token, ev);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'schema_invalid', reason: 'invalid_characters', field: 'title' });
    expect(await deliveriesOf(t.tokenId, ev.event_id as string)).toBe(0);
  });

  it('Connect EventService.Publish: invalid_argument with a violation on event.title', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h, { title: NUL });
    const client = eventClient(h, 'connect', t.token);
    const err = await client
      .publish({
        event: create(InboundEventSchema, {
          specVersion: '2',
          eventId: ev.event_id as string,
          eventType: 'personal.build.failed',
          severity: 'warn',
          title: NUL,
          occurredAt: ev.occurred_at as string,
        }),
      })
      .then(
        () => null,
        (e: unknown) => ConnectError.from(e),
      );
    expect(err?.code).toBe(Code.InvalidArgument);
    const violations = err!.findDetails(ValidationErrorDetailSchema).flatMap((d) => d.violations);
    expect(violations).toContainEqual(expect.objectContaining({ field: 'event.title', code: 'invalid_characters' }));
    expect(await deliveriesOf(t.tokenId, ev.event_id as string)).toBe(0);
  });

  it('MCP tools (create_task, add_task_comment, create_doc_draft, search_docs): an input error, never -32603', async () => {
    const a = await agent('admin');
    const calls: Array<[string, Record<string, unknown>]> = [
      ['create_task', { title: NUL, project_slug: 'nope' }],
      ['add_task_comment', { code: 'X-1', body: NUL }],
      ['create_doc_draft', { title: NUL, body: 'b', space_slug: 's' }],
      ['search_docs', { query: LONE_HIGH }],
    ];
    for (const [name, args] of calls) {
      const r = await mcp(h, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }, { token: a.token });
      expect(r.status, name).toBeLessThan(500);
      expect(r.body.error?.code, name).not.toBe(-32603);
      const text = JSON.stringify(r.body);
      expect(text, name).toContain('invalid_characters');
    }
  });
});

describe('field names that are Object.prototype members: 400, never 500', () => {
  it('GET /api/v1/event-types?toString=1', async () => {
    const t = await newPersonalToken(h);
    const r = await http(h, 'GET', '/api/v1/event-types?toString=1', { token: t.token });
    expectProblem(r, 400);
    expect(r.body.fieldErrors.toString).toEqual([expect.any(String)]);
  });

  it('a "constructor" or "__proto__" key in an event body is refused', async () => {
    const t = await newPersonalToken(h);
    for (const raw of [
      JSON.stringify({ ...event(h), constructor: { prototype: { polluted: true } } }),
      JSON.stringify({ ...event(h), constructor: { x: 1 } }),
      `{"__proto__": {"polluted": true}, ${JSON.stringify(event(h)).slice(1)}`,
    ]) {
      const r = await http(h, 'POST', '/api/v1/events', { token: t.token, rawBody: raw, headers: { 'content-type': 'application/json' } });
      expectProblem(r, 400);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('?__proto__=1 on catalog items, valueOf on claim, hasOwnProperty on resolve', async () => {
    const tools = await adminTools(h);
    const r1 = await http(h, 'GET', '/api/v1/catalog/items?__proto__=1', { token: tools.token });
    expectProblem(r1, 400);
    const r2 = await http(h, 'POST', '/api/v1/tokens/claim', { token: tools.token, body: { email: 'x@example.test', valueOf: 1 } });
    expectProblem(r2, 400);
    expect(r2.body.fieldErrors.valueOf).toEqual([expect.any(String)]);
    const t = await newPersonalToken(h);
    const pub = await publish(h, t.token, event(h));
    const r3 = await http(h, 'POST', `/api/v1/events/${pub.body.deliveryId}/resolve`, { token: t.token, body: { hasOwnProperty: 1 } });
    expectProblem(r3, 400);
    expect(r3.body.fieldErrors.hasOwnProperty).toEqual([expect.any(String)]);
  });

  it('legacy and MCP bodies with such keys are refused in their own envelopes', async () => {
    const t = await newPersonalToken(h);
    const legacy = await http(h, 'POST', '/api/internal-os/integrations/inbound/personal', {
      token: t.token,
      rawBody: `{"__proto__": {"x": 1}, ${JSON.stringify(event(h)).slice(1)}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(legacy.status).toBe(400);
    expect(legacy.body.error).toEqual(expect.any(String));
    const legacyToString = await publishLegacy(h, t.token, { ...event(h), toString: 'x' });
    expect(legacyToString.status).toBe(400);
    const a = await agent();
    const m = await mcp(h, null, {
      token: a.token,
      raw: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{"__proto__":{"x":1}}}}',
    });
    expect(m.status).toBe(400);
    expect(m.body.error.code).toBe(-32700);
  });
});

describe('a request path that is not UTF-8: 400 in the surface envelope, never the framework default', () => {
  it('REST and legacy paths', async () => {
    const t = await newPersonalToken(h);
    for (const p of ['/api/v1/catalog/items/%ED%A0%80', '/api/v1/events/%FF%FE']) {
      const r = await http(h, 'GET', p, { token: t.token });
      expectProblem(r, 400);
      expect(r.body.code).toBe('invalid_path');
      expect(r.headers.get('x-request-id')).toMatch(/^req_/);
    }
    const l = await http(h, 'POST', '/api/internal-os/integrations/inbound/%C0', { token: t.token, body: {} });
    expect(l.status).toBe(400);
    expect(l.body).toMatchObject({ error: 'invalid_path' });
  });
});

describe("gRPC errors that echo the caller's input stay within the trailers a client accepts", () => {
  it('Health.Check of a 100,000-character service name: not_found, a short message', async () => {
    const { createClient } = await import('@connectrpc/connect');
    const { Health } = await import('../../../gen/grpc/health/v1/health_pb.js');
    const health = createClient(Health, transportFor(h, 'grpc'));
    const err = await health.check({ service: 'x'.repeat(100_000) }).then(
      () => null,
      (e: unknown) => ConnectError.from(e),
    );
    expect(err?.code).toBe(Code.NotFound);
    expect(err!.rawMessage.length).toBeLessThan(400);
  });

  it('Publish with a 60,000-character label key: invalid_argument naming a bounded field', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h);
    const err = await eventClient(h, 'grpc', t.token)
      .publish({
        event: create(InboundEventSchema, {
          specVersion: '2',
          eventId: ev.event_id as string,
          eventType: 'personal.build.failed',
          severity: 'warn',
          title: 't',
          occurredAt: ev.occurred_at as string,
          labels: { ['k'.repeat(60_000)]: 'v' },
        }),
      })
      .then(
        () => null,
        (e: unknown) => ConnectError.from(e),
      );
    expect(err?.code).toBe(Code.InvalidArgument);
    const violations = err!.findDetails(ValidationErrorDetailSchema).flatMap((d) => d.violations);
    expect(violations.length).toBeGreaterThan(0);
    for (const v of violations) expect(v.field.length).toBeLessThanOrEqual(201);
  });
});

describe('deep nesting: bounded at parse time, 400', () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  it('catalog use_cases 5,000 levels deep', async () => {
    const tools = await adminTools(h);
    const raw = `{"slug":"deep-x","name":"Deep","type":"other","use_cases":${deep(5000)}}`;
    const r = await http(h, 'POST', '/api/v1/catalog/items', { token: tools.token, rawBody: raw, headers: { 'content-type': 'application/json' } });
    expectProblem(r, 400);
    expect(r.body.errors[0]).toMatchObject({ code: 'too_deep' });
  });

  it('with an Idempotency-Key (the fingerprint never sees it), 100,000 levels', async () => {
    const tools = await adminTools(h);
    const raw = `{"slug":"deep-y","name":"Deep","type":"other","use_cases":${deep(100_000)}}`;
    const r = await http(h, 'POST', '/api/v1/catalog/items', {
      token: tools.token,
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k-deep' },
    });
    expectProblem(r, 400);
    expect(r.body.errors[0]).toMatchObject({ code: 'too_deep' });
  });

  it('legacy and MCP alike', async () => {
    const t = await newPersonalToken(h);
    const l = await http(h, 'POST', '/api/internal-os/integrations/inbound/personal', {
      token: t.token,
      rawBody: deep(5000),
      headers: { 'content-type': 'application/json' },
    });
    expect(l.status).toBe(400);
    const a = await agent();
    const m = await mcp(h, null, {
      token: a.token,
      raw: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{"a":${deep(5000)}}}}`,
    });
    expect(m.status).toBe(400);
    expect(m.body.error.code).toBe(-32700);
  });

  it('64 levels are still accepted by the parser (it reaches validation)', async () => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, { ...event(h), extra: JSON.parse(deep(60)) });
    expectProblem(r, 400);
    expect(r.body.errors).toContainEqual(expect.objectContaining({ field: 'extra', code: 'unknown_key' }));
  });
});

describe('chunked bodies on the inbound POSTs: 411', () => {
  function chunked(path: string, token: string, body: string): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const u = new URL(h.baseUrl);
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path,
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      req.end(body.slice(10));
    });
  }
  it('POST /api/v1/events and the legacy endpoint refuse chunked transfer; nothing stored', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h);
    const v1 = await chunked('/api/v1/events', t.token, JSON.stringify(ev));
    expect(v1.status).toBe(411);
    expect(v1.body).toMatchObject({ status: 411, code: 'length_required' });
    const legacy = await chunked('/api/internal-os/integrations/inbound/personal', t.token, JSON.stringify(ev));
    expect(legacy.status).toBe(411);
    expect(await deliveriesOf(t.tokenId, ev.event_id as string)).toBe(0);
  });
});
