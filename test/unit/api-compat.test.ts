// The API evolution guard (docs/api-evolution.md; SPEC "Versioning": /api/v1/* contracts stay stable,
// protocol changes stay additive): the OpenAPI breaking-change checker, recorded exceptions, and
// `buf breaking` with the rule set configured in buf.yaml.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffOpenApi } from '../../scripts/api-compat.openapi.js';
import { applyExceptions, loadExceptions, parseExceptions, type Finding } from '../../scripts/api-compat.exceptions.js';
import { bufBreaking, bufBuildImage } from '../../scripts/api-compat.proto.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const baseline = () => JSON.parse(readFileSync(path.join(ROOT, 'api/baseline/openapi.json'), 'utf8')) as Record<string, any>;
const ids = (f: Finding[]) => f.map((x) => x.id);

describe('OpenAPI breaking-change checker, on the committed release document', () => {
  it('finds nothing between a document and itself', () => {
    expect(diffOpenApi(baseline(), baseline())).toEqual([]);
  });

  it('reports a removed operation and a removed path', () => {
    const head = baseline();
    delete head.paths['/api/v1/events/{deliveryId}'].get;
    delete head.paths['/api/v1/tokens/claim/batch'];
    expect(ids(diffOpenApi(baseline(), head))).toEqual([
      'openapi: operation-removed at GET /api/v1/events/{deliveryId}',
      'openapi: operation-removed at POST /api/v1/tokens/claim/batch',
    ]);
  });

  it('reports a request property made required and one added as required', () => {
    const head = baseline();
    const ev = head.components.schemas.InboundEvent;
    expect(ev.required).not.toContain('summary');
    ev.required.push('summary');
    ev.properties.ticket = { type: 'string' };
    ev.required.push('ticket');
    expect(ids(diffOpenApi(baseline(), head))).toEqual([
      'openapi: request-property-became-required at POST /api/v1/events request body application/json $.summary',
      'openapi: request-property-added-required at POST /api/v1/events request body application/json $.ticket',
    ]);
  });

  it('does not report an added optional request property, an added response property, a new operation or a renamed path parameter', () => {
    const head = baseline();
    head.components.schemas.InboundEvent.properties.ticket = { type: 'string', maxLength: 80 };
    head.components.schemas.Delivery.properties.ticket = { type: 'string' };
    head.components.schemas.Delivery.required.push('ticket');
    head.paths['/api/v1/events/{deliveryId}/reopen'] = { post: { operationId: 'reopen', responses: { 200: { description: 'ok' } } } };
    const item = head.paths['/api/v1/events/{deliveryId}'];
    delete head.paths['/api/v1/events/{deliveryId}'];
    for (const p of item.get.parameters) if (p.name === 'deliveryId') p.name = 'id';
    head.paths['/api/v1/events/{id}'] = item;
    expect(diffOpenApi(baseline(), head)).toEqual([]);
  });

  it('reports a response property removed, a request enum value removed and a success status removed, each once, with where it is', () => {
    const head = baseline();
    delete head.components.schemas.Delivery.properties.fireCount;
    head.components.schemas.Delivery.required = head.components.schemas.Delivery.required.filter((n: string) => n !== 'fireCount');
    const sev = head.components.schemas.InboundEvent.properties.severity;
    sev.enum = sev.enum.filter((v: string) => v !== 'warn');
    delete head.paths['/api/v1/events'].post.responses['200'];
    const found = diffOpenApi(baseline(), head);
    expect(ids(found)).toEqual(
      expect.arrayContaining([
        'openapi: response-status-removed at POST /api/v1/events response 200',
        'openapi: request-enum-value-removed at POST /api/v1/events request body application/json $.severity',
        'openapi: response-property-removed at POST /api/v1/events response 202 application/json $.fireCount',
        'openapi: response-property-removed at GET /api/v1/events/{deliveryId} response 200 application/json $.fireCount',
      ]),
    );
    expect(new Set(ids(found)).size).toBe(found.length);
    expect(found.find((f) => f.rule === 'request-enum-value-removed')!.message).toBe('$.severity no longer accepts "warn"');
  });

  it('reports an operation that now requires authentication; documenting another scheme beside the old one is fine', () => {
    const head = baseline();
    head.paths['/api/v1/health'].get.security = [{ bearer: [] }];
    head.paths['/api/v1/events'].post.security = [{ bearer: [] }, { mtls: [] }];
    expect(ids(diffOpenApi(baseline(), head))).toEqual(['openapi: security-changed at GET /api/v1/health security (none)']);
  });

  it('an error status no longer documented is not a break', () => {
    const head = baseline();
    delete head.paths['/api/v1/events'].post.responses['409'];
    expect(diffOpenApi(baseline(), head)).toEqual([]);
  });
});

describe('OpenAPI checker rules on small documents', () => {
  const doc = (req: unknown, res: unknown, params: unknown[] = []) => ({
    openapi: '3.1.0',
    paths: {
      '/x': {
        post: {
          parameters: params,
          requestBody: { required: true, content: { 'application/json': { schema: req } } },
          responses: {
            200: { description: 'ok', headers: { 'X-RateLimit-Limit': { schema: { type: 'integer' } } }, content: { 'application/json': { schema: res } } },
          },
        },
      },
    },
  });
  const obj = (properties: Record<string, unknown>, required: string[] = [], extra: Record<string, unknown> = {}) => ({
    type: 'object',
    properties,
    required,
    ...extra,
  });
  const rules = (a: unknown, b: unknown) => diffOpenApi(a as never, b as never).map((f) => `${f.rule} ${f.where.replace(/^POST \/x /, '')}`);

  it('a response field that may now be null, or a new response enum value, breaks clients; a request field that now accepts null does not', () => {
    const s = { type: 'string', enum: ['open', 'resolved'] };
    const nullable = { anyOf: [s, { type: 'null' }] };
    expect(rules(doc(obj({ a: s }), obj({ a: s }, ['a'])), doc(obj({ a: nullable }), obj({ a: nullable }, ['a'])))).toEqual([
      'response-type-widened response 200 application/json $.a',
    ]);
    const more = { type: 'string', enum: ['open', 'resolved', 'snoozed'] };
    expect(rules(doc(obj({ a: s }), obj({ a: s }, ['a'])), doc(obj({ a: more }), obj({ a: more }, ['a'])))).toEqual([
      'response-enum-value-added response 200 application/json $.a',
    ]);
  });

  it('tightened request bounds, a narrowed request type, a closed request object, a new required parameter and a removed response header are breaks', () => {
    const before = doc(obj({ n: { type: 'number' }, t: { type: 'string', maxLength: 100 } }), obj({}), [
      { name: 'q', in: 'query', required: false, schema: { type: 'string' } },
    ]);
    const after = doc(obj({ n: { type: 'integer' }, t: { type: 'string', maxLength: 50 } }, [], { additionalProperties: false }), obj({}), [
      { name: 'q', in: 'query', required: false, schema: { type: 'string' } },
      { name: 'p', in: 'query', required: true, schema: { type: 'string' } },
    ]);
    delete (after.paths['/x'].post.responses[200] as { headers?: unknown }).headers;
    expect(rules(before, after).sort()).toEqual(
      [
        'request-type-narrowed request body application/json $.n',
        'request-constraint-tightened request body application/json $.t',
        'request-object-closed request body application/json $',
        'request-parameter-added-required query parameter p',
        'response-header-removed response 200 header X-RateLimit-Limit',
      ].sort(),
    );
  });

  it('reads allOf (a shared component plus per-response members) as one object', () => {
    const problem = obj({ type: { type: 'string' }, code: { type: 'string' }, detail: { type: 'string' } }, ['type', 'code']);
    const withComponent = (extra: Record<string, unknown>, shared = problem) => ({
      ...doc(obj({}), { allOf: [{ $ref: '#/components/schemas/Problem' }, extra] }),
      components: { schemas: { Problem: shared } },
    });
    const before = doc(obj({}), { ...problem, additionalProperties: false });
    expect(rules(before, withComponent(obj({ code: { type: 'string', enum: ['rate_limited'] }, email: { type: 'string' } })))).toEqual([]);
    const { detail: _gone, ...fewer } = problem.properties;
    expect(rules(before, withComponent(obj({}), obj(fewer, ['type'])))).toEqual([
      'response-property-became-optional response 200 application/json $.code',
      'response-property-removed response 200 application/json $.detail',
    ]);
  });

  it('follows $ref into components and survives recursive schemas', () => {
    const mk = (extraRequired: string[]) => ({
      openapi: '3.1.0',
      components: {
        schemas: {
          Node: {
            type: 'object',
            properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
            required: extraRequired,
          },
        },
      },
      paths: { '/x': { post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } }, responses: {} } } },
    });
    expect(rules(mk([]), mk([]))).toEqual([]);
    expect(rules(mk([]), mk(['name']))).toEqual(['request-property-became-required request body application/json $.name']);
  });
});

describe('recorded exceptions', () => {
  const f = (id: string): Finding => ({ check: 'openapi', rule: 'r', where: 'w', message: 'm', id });
  const entry = (change: string) => ({ change, why: 'retired endpoint, announced in 0.25', who: 'lead', when: '2026-11-25' });

  it('an entry silences exactly the change it names; the others still fail; a stale entry is listed', () => {
    const a = f('openapi: operation-removed at GET /api/v1/a');
    const b = f('openapi: operation-removed at GET /api/v1/ab');
    const v = applyExceptions([a, b], [entry(a.id), entry('openapi: operation-removed at GET /api/v1/gone')]);
    expect(v.breaking).toEqual([b]);
    expect(v.excepted.map((x) => x.finding)).toEqual([a]);
    expect(v.unused.map((e) => e.change)).toEqual(['openapi: operation-removed at GET /api/v1/gone']);
  });

  it('an entry without why, who or a date is refused with a message naming it', () => {
    expect(() => parseExceptions({ exceptions: [{ change: 'x', why: 'y', who: '', when: 'yesterday', extra: 1 }] }, 'api/breaking-exceptions.json')).toThrow(
      /api\/breaking-exceptions.json:\n {2}exceptions\[0\]\.who must be a non-empty string\n {2}exceptions\[0\]\.when must be a date \(YYYY-MM-DD\)\n {2}exceptions\[0\] has unknown field\(s\) extra/,
    );
    expect(() => parseExceptions([])).toThrow(/"exceptions" array/);
  });

  it('the committed exceptions file is well formed', () => {
    expect(Array.isArray(loadExceptions(path.join(ROOT, 'api/breaking-exceptions.json')))).toBe(true);
  });
});

describe('buf breaking against a baseline image (rules from buf.yaml)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'api-compat-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const buf = path.join(ROOT, 'node_modules/.bin/buf');
  const protoFile = path.join(dir, 'proto/demo/v1/demo.proto');
  const writeProto = (fields: string) => writeFileSync(protoFile, `syntax = "proto3";\npackage demo.v1;\nmessage Item {\n${fields}}\n`);

  it('reports a removed field and a renamed one (its JSON name changes), with stable ids; an added field is fine', () => {
    // The project's own breaking configuration, on a one-file module.
    const breaking = readFileSync(path.join(ROOT, 'buf.yaml'), 'utf8').split(/^breaking:/m)[1]!;
    writeFileSync(path.join(dir, 'buf.yaml'), `version: v2\nmodules:\n  - path: proto\nbreaking:${breaking}`);
    mkdirSync(path.dirname(protoFile), { recursive: true });
    writeProto('  string title = 1;\n  string summary = 2;\n  string status = 3;\n');
    const image = path.join(dir, 'baseline.binpb');
    bufBuildImage(dir, image, buf);

    writeProto('  string title = 1;\n  string state = 3;\n  string note = 4;\n');
    const found = bufBreaking({ cwd: dir, against: image, buf });
    expect(found.map((x) => x.rule)).toEqual(expect.arrayContaining(['FIELD_NO_DELETE', 'FIELD_SAME_JSON_NAME']));
    const deleted = found.find((x) => x.rule === 'FIELD_NO_DELETE')!;
    expect(deleted.id).toBe(
      'proto: FIELD_NO_DELETE at proto/demo/v1/demo.proto: Previously present field "2" with name "summary" on message "Item" was deleted.',
    );

    writeProto('  string title = 1;\n  string summary = 2;\n  string status = 3;\n  string note = 4;\n');
    expect(bufBreaking({ cwd: dir, against: image, buf })).toEqual([]);
  });

  it('the committed release image guards the project module: a field deleted from InboundEvent is reported', () => {
    const copy = path.join(dir, 'project');
    mkdirSync(copy);
    cpSync(path.join(ROOT, 'proto'), path.join(copy, 'proto'), { recursive: true });
    cpSync(path.join(ROOT, 'buf.yaml'), path.join(copy, 'buf.yaml'));
    const against = path.join(ROOT, 'api/baseline/fluxdesk.binpb');
    const titleDeleted = expect.stringMatching(
      /^proto: FIELD_NO_DELETE at proto\/fluxdesk\/events\/v1\/events.proto: Previously present field "\d+" with name "title" on message "InboundEvent" was deleted\.$/,
    );
    expect(bufBreaking({ cwd: copy, against, buf }).map((x) => x.id)).not.toContainEqual(titleDeleted);
    const file = path.join(copy, 'proto/fluxdesk/events/v1/events.proto');
    const text = readFileSync(file, 'utf8');
    const start = text.indexOf('message InboundEvent {');
    expect(start).toBeGreaterThan(-1);
    writeFileSync(file, text.slice(0, start) + text.slice(start).replace(/\n\s*string title = \d+;/, ''));
    expect(bufBreaking({ cwd: copy, against, buf }).map((x) => x.id)).toContainEqual(titleDeleted);
  });
});
