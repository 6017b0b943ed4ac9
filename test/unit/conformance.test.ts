// The OpenAPI response conformance checker of the test harness (test/helpers/conformance*.ts):
// each kind of drift is reported, a conforming response is not; and the recorder
// sees the responses of a real Fastify instance, routed and unrouted, and its route table.
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  clearCompiledValidators,
  compileCount,
  ConformanceChecker,
  describeViolations,
  formatViolation,
  templateKey,
  type ObservedResponse,
  type Violation,
} from '../helpers/conformance.js';
import { isConnectRoute, ServerRecorder, takeViolations } from '../helpers/conformance-recorder.js';

const problem = {
  type: 'object',
  required: ['type', 'title', 'status', 'code'],
  additionalProperties: false,
  properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, code: { type: 'string' } },
};

const DOC = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  servers: [{ url: 'http://127.0.0.1:1' }],
  paths: {
    '/api/v1/things/{id}': {
      get: {
        responses: {
          '200': {
            description: 'ok',
            headers: {
              'X-RateLimit-Remaining': { schema: { type: 'integer', minimum: 0 } },
              'X-Request-Id': { $ref: '#/components/headers/RequestId' },
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '404': { $ref: '#/components/responses/Problem' },
          '5XX': { $ref: '#/components/responses/Problem' },
        },
      },
    },
    '/api/v1/things/special': { get: { responses: { '204': { description: 'nothing' } } } },
    '/api/v1/gone': { get: { responses: { '200': { description: 'never served' } } } },
    '/api/v1/text': { get: { responses: { '200': { description: 'md', content: { 'text/markdown': {} } } } } },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'createdAt'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', format: 'uuid' },
          createdAt: { type: 'string', format: 'date-time' },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
      Problem: problem,
    },
    headers: { RequestId: { required: true, schema: { type: 'string', minLength: 1 } } },
    responses: { Problem: { description: 'problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } } },
  },
};
const TEXT = JSON.stringify(DOC);
const ID = '0b6f1f8e-3c1a-4c53-9d43-8c2b8a1f0a11';
const thing = { id: ID, createdAt: '2026-11-25T16:00:00Z' };

function res(over: Partial<ObservedResponse> = {}): ObservedResponse {
  return {
    method: 'GET',
    route: '/api/v1/things/:id',
    url: `/api/v1/things/${ID}`,
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-remaining': '59', 'x-request-id': 'r-1' },
    body: JSON.stringify(thing),
    ...over,
  };
}

describe('ConformanceChecker.checkResponse', () => {
  const c = new ConformanceChecker(TEXT);

  it('accepts a response that matches status, content type, body schema and headers', () => {
    expect(c.checkResponse(res())).toEqual([]);
    expect(c.checkResponse(res({ body: Buffer.from(JSON.stringify({ ...thing, tags: ['a'] })) }))).toEqual([]);
    // Status ranges and $ref'd responses.
    const p = JSON.stringify({ type: 'x', title: 'Unavailable', status: 503, code: 'not_ready' });
    expect(c.checkResponse(res({ status: 503, headers: { 'content-type': 'application/problem+json', 'x-request-id': 'r' }, body: p }))).toEqual([]);
    // No body where none is documented; non-JSON types are matched by media type only.
    expect(c.checkResponse(res({ route: '/api/v1/things/special', url: '/api/v1/things/special', status: 204, headers: {}, body: '' }))).toEqual([]);
    expect(
      c.checkResponse(res({ route: '/api/v1/text', url: '/api/v1/text', headers: { 'content-type': 'text/markdown; charset=utf-8' }, body: '# hi' })),
    ).toEqual([]);
  });

  it('reports a status the operation does not document', () => {
    const vs = c.checkResponse(res({ status: 422, headers: { 'content-type': 'application/problem+json' }, body: '{}' }));
    expect(vs).toHaveLength(1);
    expect(vs[0]).toMatchObject({ kind: 'undocumented-status', method: 'GET', path: '/api/v1/things/{id}', status: 422 });
    expect(formatViolation(vs[0]!)).toContain('status 422 is not documented (documented: 200, 404, 5XX)');
  });

  it('reports a body missing a required member', () => {
    const vs = c.checkResponse(res({ body: JSON.stringify({ id: ID }) }));
    expect(vs).toHaveLength(1);
    expect(vs[0]).toMatchObject({ kind: 'invalid-body', status: 200 });
    expect(vs[0]!.message).toContain('required member "createdAt" is missing');
  });

  it('reports an extra member where additionalProperties is false (a problem extension member)', () => {
    const body = JSON.stringify({ type: 'x', title: 'Not found', status: 404, code: 'user_not_found', email: 'a@example.test' });
    const vs = c.checkResponse(res({ status: 404, headers: { 'content-type': 'application/problem+json', 'x-request-id': 'r' }, body }));
    expect(vs).toHaveLength(1);
    expect(vs[0]).toMatchObject({ kind: 'invalid-body', status: 404 });
    expect(vs[0]!.message).toContain('member "email" is not allowed');
  });

  it('reports a member of the wrong type or format, all at once', () => {
    const vs = c.checkResponse(res({ body: JSON.stringify({ id: 'not-a-uuid', createdAt: 5 }) }));
    expect(vs).toHaveLength(1);
    expect(vs[0]!.message).toContain('/id: must match format "uuid"');
    expect(vs[0]!.message).toContain('/createdAt: must be string');
  });

  it('reports a header of the wrong shape, and a required header that is missing', () => {
    const wrong = c.checkResponse(res({ headers: { 'content-type': 'application/json', 'x-ratelimit-remaining': 'many', 'x-request-id': 'r' } }));
    expect(wrong).toHaveLength(1);
    expect(wrong[0]).toMatchObject({ kind: 'invalid-header' });
    expect(wrong[0]!.message).toContain('X-RateLimit-Remaining');
    const negative = c.checkResponse(res({ headers: { 'content-type': 'application/json', 'x-ratelimit-remaining': '-1', 'x-request-id': 'r' } }));
    expect(negative.map((v) => v.kind)).toEqual(['invalid-header']);
    const missing = c.checkResponse(res({ headers: { 'content-type': 'application/json' } }));
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatchObject({ kind: 'missing-header' });
    expect(missing[0]!.message).toContain('X-Request-Id');
  });

  it('reports an undocumented content type, an undocumented body, a missing body and a body that is not JSON', () => {
    expect(c.checkResponse(res({ headers: { 'content-type': 'text/plain', 'x-request-id': 'r' }, body: 'hi' })).map((v) => v.kind)).toEqual([
      'undocumented-content-type',
    ]);
    expect(
      c
        .checkResponse(
          res({ route: '/api/v1/things/special', url: '/api/v1/things/special', status: 204, headers: { 'content-type': 'application/json' }, body: '{}' }),
        )
        .map((v) => v.kind),
    ).toEqual(['undocumented-body']);
    expect(c.checkResponse(res({ body: '' })).map((v) => v.kind)).toEqual(['missing-body']);
    expect(c.checkResponse(res({ body: '{"id":' })).map((v) => v.kind)).toEqual(['invalid-body']);
  });

  it('matches a request no route handled by path template, the most specific first; ignores paths outside the document', () => {
    expect(templateKey('/api/v1/things/:id/')).toBe('/api/v1/things/{}');
    expect(c.matchPath('/api/v1/things/special')).toBe('/api/v1/things/special');
    expect(c.matchPath(`/api/v1/things/${ID}`)).toBe('/api/v1/things/{}');
    expect(c.matchPath('/api/v1/things/')).toBe(undefined);
    // A 400 for an undecodable id on a documented path is checked like a routed one.
    const vs = c.checkResponse(
      res({ route: undefined, url: '/api/v1/things/%ED%A0%80', status: 400, headers: { 'content-type': 'application/problem+json' }, body: '{}' }),
    );
    expect(vs.map((v) => v.kind)).toEqual(['undocumented-status']);
    expect(c.checkResponse(res({ route: undefined, url: '/nowhere', status: 404, body: 'x' }))).toEqual([]);
    expect(c.checkResponse(res({ method: 'DELETE' }))).toEqual([]);
  });
});

describe('compiled validators shared through a cache directory', () => {
  it('a checker of another process (here: after the in-process cache is cleared) uses the cached code and reports the same', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'conformance-cache-'));
    clearCompiledValidators(); // compiled by the tests above
    try {
      const extra = res({
        status: 404,
        headers: { 'content-type': 'application/problem+json', 'x-request-id': 'r' },
        body: JSON.stringify({ type: 'x', title: 'T', status: 404, code: 'c', email: 'a@b' }),
      });
      const first = new ConformanceChecker(TEXT, { cacheDir: dir });
      const before = first.checkResponse(extra).map((v) => formatViolation(v));
      expect(first.checkResponse(res())).toEqual([]);
      const files = readdirSync(dir);
      expect(files.length).toBeGreaterThanOrEqual(3); // Problem, Thing, the two header schemas
      clearCompiledValidators();
      const compiled = compileCount();
      const second = new ConformanceChecker(TEXT, { cacheDir: dir });
      expect(second.checkResponse(extra).map((v) => formatViolation(v))).toEqual(before);
      expect(before[0]).toContain('member "email" is not allowed');
      expect(second.checkResponse(res())).toEqual([]);
      expect(second.checkResponse(res({ body: JSON.stringify({ id: 'nope', createdAt: 'x' }) }))[0]!.message).toContain('must match format "uuid"');
      expect(compileCount()).toBe(compiled); // nothing compiled again
      expect(readdirSync(dir)).toEqual(files);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ConformanceChecker.checkRoutes', () => {
  const c = new ConformanceChecker(TEXT);
  it('reports served routes missing from the document and documented operations with no route; Connect procedures, implicit HEAD routes and methods OpenAPI 3.1 cannot express are exempt', () => {
    const vs = c.checkRoutes(
      [
        { method: 'GET', url: '/api/v1/things/:thingId' },
        { method: 'HEAD', url: '/api/v1/things/:thingId' },
        { method: 'QUERY', url: '/api/v1/things/:thingId' },
        { method: 'GET', url: '/api/v1/things/special' },
        { method: 'POST', url: '/mcp' },
        { method: 'POST', url: '/fluxdesk.events.v1.EventService/Publish' },
      ],
      isConnectRoute,
    );
    expect(vs.map((v) => formatViolation(v))).toEqual([
      'POST /mcp [undocumented-route] served, but not in the document',
      'GET /api/v1/gone [unserved-operation] documented, but no route serves it',
      'GET /api/v1/text [unserved-operation] documented, but no route serves it',
    ]);
  });
});

describe('describeViolations (the error a file fails with in strict mode)', () => {
  it('lists each distinct violation once with its count, capped', () => {
    const a: Violation = { kind: 'undocumented-status', method: 'POST', path: '/api/v1/events', status: 422, message: 'status 422 is not documented' };
    const b: Violation = { kind: 'invalid-body', method: 'POST', path: '/api/v1/tokens/claim', status: 403, message: 'member "email" is not allowed' };
    const text = describeViolations([a, b, a, a]);
    expect(text.split('\n').slice(1)).toEqual([
      '  POST /api/v1/events -> 422 [undocumented-status] status 422 is not documented (x3)',
      '  POST /api/v1/tokens/claim -> 403 [invalid-body] member "email" is not allowed',
    ]);
    expect(text).toMatch(/^OpenAPI conformance: 4 response\(s\) or route\(s\)/);
    const many = Array.from({ length: 5 }, (_, i) => ({ ...a, status: 400 + i }));
    expect(describeViolations(many, 2).split('\n').slice(1)).toEqual([
      '  POST /api/v1/events -> 400 [undocumented-status] status 422 is not documented',
      '  POST /api/v1/events -> 401 [undocumented-status] status 422 is not documented',
      '  … 3 more',
    ]);
  });
});

describe('ServerRecorder on a Fastify instance', () => {
  afterEach(() => {
    takeViolations();
  });

  it('checks every response (routed, and not found on a documented path) against the document the instance serves, and its routes', async () => {
    const recorder = new ServerRecorder();
    const app = Fastify();
    recorder.install(app);
    app.get('/api/v1/openapi.json', async (_req, reply) => reply.type('application/json').send(TEXT));
    app.get('/api/v1/things/:id', async (req, reply) => {
      const id = (req.params as { id: string }).id;
      reply.header('x-request-id', 'r-1').header('x-ratelimit-remaining', 3);
      if (id === 'missing')
        return reply.code(404).type('application/problem+json').send({ type: 'x', title: 'Not found', status: 404, code: 'not_found', slug: 'missing' });
      if (id === 'bad') return reply.code(422).type('application/problem+json').send({ type: 'x', title: 'Bad', status: 422, code: 'bad' });
      return { ...thing, ...(id === 'extra' ? { extra: 1 } : {}) };
    });
    app.get('/api/v1/text', async (_req, reply) => reply.type('text/markdown').send('# hi'));
    await app.ready();
    // Seen before the document is loaded: checked once it is.
    await app.inject({ method: 'GET', url: '/api/v1/things/extra' });
    await recorder.attach(app);
    expect(takeViolations().map((v) => formatViolation(v))).toEqual([
      'GET /api/v1/openapi.json [undocumented-route] served, but not in the document',
      'GET /api/v1/things/special [unserved-operation] documented, but no route serves it',
      'GET /api/v1/gone [unserved-operation] documented, but no route serves it',
      'GET /api/v1/things/{id} -> 200 [invalid-body] application/json body: (root): member "extra" is not allowed',
    ]);
    await app.inject({ method: 'GET', url: `/api/v1/things/${ID}` });
    await app.inject({ method: 'GET', url: '/api/v1/text' });
    await app.inject({ method: 'GET', url: '/not/documented' });
    expect(takeViolations()).toEqual([]);
    await app.inject({ method: 'GET', url: '/api/v1/things/missing' });
    await app.inject({ method: 'GET', url: '/api/v1/things/bad' });
    // Documented, but no route: the not-found handler's answer is checked against the operation.
    await app.inject({ method: 'GET', url: '/api/v1/gone' });
    expect(takeViolations().map((v) => formatViolation(v))).toEqual([
      'GET /api/v1/things/{id} -> 404 [invalid-body] application/problem+json body: (root): member "slug" is not allowed',
      'GET /api/v1/things/{id} -> 422 [undocumented-status] status 422 is not documented (documented: 200, 404, 5XX)',
      'GET /api/v1/gone -> 404 [undocumented-status] status 404 is not documented (documented: 200)',
    ]);
    await app.close();
  });
});
