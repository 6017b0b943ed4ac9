// The OpenAPI document describes what the server really does: it is built from the route
// declarations that register the routes, every declared route is served and documented (and every
// documented operation served), real responses (successes and problems with their extension
// members) validate against the documented schemas (JSON Schema 2020-12), and the older endpoints
// and /mcp are in it.
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastifyPath } from '../../../src/transports/http/route-declaration.js';
import { LEGACY_OPERATION_ROUTES, LEGACY_ROUTES } from '../../../src/transports/http/route-legacy.js';
import { buildOpenApi, REST_V1_ROUTES } from '../../../src/transports/rest-v1/openapi.js';
import { SERVICE_ROUTE_DOCS } from '../../../src/transports/rest-v1/service-routes.js';
import { event, http, newPersonalToken, newUser, operator, publish, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';

let h: Harness;
let doc: any;
let ajv: InstanceType<typeof Ajv2020.default>;
const PACKAGE = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

beforeAll(async () => {
  h = await startHarness();
  doc = (await http(h, 'GET', '/api/v1/openapi.json')).body;
  ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
});
afterAll(async () => {
  await h?.close();
});

function check(pointer: string, value: unknown): string[] {
  const v = ajv.getSchema(`openapi.json${pointer}`);
  if (!v) throw new Error(`no schema at ${pointer}`);
  return v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
const component = (name: string, value: unknown) => check(`#/components/schemas/${name}`, value);
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
/** The documented response schema of `method path -> status` for `type`. */
function response(
  method: string,
  path: string,
  status: number,
  value: unknown,
  type = status >= 400 ? 'application/problem+json' : 'application/json',
): string[] {
  return check(`#/paths/${esc(path)}/${method}/responses/${status}/content/${esc(type)}/schema`, value);
}

function operations(): Array<{ path: string; method: string; op: any }> {
  return Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })),
  );
}

describe('GET /api/v1/openapi.json', () => {
  it('is OpenAPI 3.1 whose info.version is the package version', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(PACKAGE.version);
  });

  it("is the document the declarations build (the served text is the builder's)", () => {
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildOpenApi(h.baseUrl, { metrics: true }))));
  });

  it('every declared route is served and documented, and every documented operation is served', () => {
    const declared = [...REST_V1_ROUTES, ...SERVICE_ROUTE_DOCS, ...LEGACY_ROUTES];
    expect(declared.length).toBeGreaterThan(30);
    for (const r of declared) {
      expect(h.svc.app.hasRoute({ method: r.method, url: fastifyPath(r.path) }), `${r.method} ${r.path} served`).toBe(true);
      expect(doc.paths[r.path]?.[r.method.toLowerCase()], `${r.method} ${r.path} documented`).toBeDefined();
    }
    for (const { path, method } of operations()) {
      expect(h.svc.app.hasRoute({ method: method.toUpperCase() as 'GET', url: fastifyPath(path) }), `${method} ${path}`).toBe(true);
    }
  });

  it("a route's fixed success status is one its declaration documents", () => {
    for (const r of [...REST_V1_ROUTES, ...LEGACY_OPERATION_ROUTES]) {
      if (!('op' in r) || 'documentedOnly' in r || typeof r.status === 'function') continue;
      expect(
        r.success.map((s) => s.status),
        `${r.method} ${r.path}`,
      ).toContain(r.status ?? 200);
    }
  });

  it('every operation has a tag declared at the top level, an operationId, a summary and a description', () => {
    const tags = new Map<string, string>(doc.tags.map((t: any) => [t.name, t.description]));
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      expect(op.tags?.length, where).toBe(1);
      expect(tags.get(op.tags[0]), where).toBeTruthy();
      expect(op.summary, where).toBeTruthy();
      expect(op.description, where).toBeTruthy();
      expect(ids.has(op.operationId), `${where}: operationId ${op.operationId} unique`).toBe(false);
      ids.add(op.operationId);
    }
  });

  it('every operation answers a 2xx, except the routes that exist only to refuse (410 version 1 paths, 405 at /mcp)', () => {
    // redocly.yaml turns operation-2xx-response off for these; this keeps it for the rest.
    for (const { path, method, op } of operations()) {
      const statuses = Object.keys(op.responses);
      const refusing = path === '/inbound/{slug}' || path === '/api/internal-os/integrations/inbound/{slug}' || (path === '/mcp' && method !== 'post');
      if (refusing)
        expect(
          statuses.some((s) => s.startsWith('2')),
          `${method} ${path}`,
        ).toBe(false);
      else
        expect(
          statuses.some((s) => s.startsWith('2')),
          `${method} ${path}`,
        ).toBe(true);
    }
  });

  it('public routes say so (security: []), token routes name the bearer scheme', () => {
    for (const [path, method] of [
      ['/api/v1/health', 'get'],
      ['/api/v1/ready', 'get'],
      ['/api/v1/openapi.json', 'get'],
      ['/api/v1/docs', 'get'],
      ['/metrics', 'get'],
      ['/api/internal-os/integrations/protocol', 'get'],
    ] as const) {
      expect(doc.paths[path][method].security, path).toEqual([]);
    }
    expect(doc.paths['/api/v1/events'].post.security).toEqual([{ bearer: [] }]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents the 422 inbound-no-approval of POST /api/v1/events and the 411 of a chunked body', () => {
    const op = doc.paths['/api/v1/events'].post;
    expect(op.responses['422'].content['application/problem+json'].schema.allOf[1].properties.code.enum).toEqual(['inbound_no_approval']);
    expect(op.responses['411']).toBeDefined();
    expect(op.parameters.some((p: any) => p.name === 'X-Caller-Tools-Token' && p.in === 'header')).toBe(true);
    expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
  });

  it('documents the older endpoints (tag legacy, deprecated where the spec calls them older) with the legacy error body', () => {
    const publishOld = doc.paths['/api/internal-os/integrations/inbound/personal'].post;
    expect(publishOld.tags).toEqual(['legacy']);
    expect(publishOld.deprecated).toBe(true);
    expect(publishOld.responses['400'].content['application/json'].schema.allOf[0]).toEqual({ $ref: '#/components/schemas/LegacyError' });
    expect(publishOld.responses['400'].content['application/problem+json']).toBeUndefined();
    for (const path of [
      '/api/internal-os/integrations/claim',
      '/api/internal-os/integrations/claim/batch',
      '/api/internal-os/integrations/claim/ping',
      '/api/internal-os/integrations/inbound/personal/ping',
      '/api/internal-os/integrations/catalog/approval',
    ]) {
      expect(doc.paths[path].post.deprecated, path).toBe(true);
    }
    expect(doc.paths['/inbound/{slug}'].get.responses['410']).toBeDefined();
    expect(doc.paths['/api/internal-os/agent/protocol'].get.deprecated).toBeUndefined();
  });

  it('documents /mcp as one JSON-RPC operation pointing to the agent protocol document', () => {
    const op = doc.paths['/mcp'].post;
    expect(op.tags).toEqual(['agent']);
    expect(op.description).toContain('/api/internal-os/agent/protocol');
    expect(op.description).toContain('JSON-RPC 2.0');
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '202', '4XX', '5XX']));
    expect(doc.paths['/mcp'].get.responses['405']).toBeDefined();
  });

  it('documents /metrics only where it is served', () => {
    expect(doc.paths['/metrics']?.get).toBeDefined();
    expect(buildOpenApi(h.baseUrl, { metrics: false }).paths).not.toHaveProperty(['/metrics']);
  });
});

describe('real responses validate against the documented schemas', () => {
  it('deliveries, event types, health, readiness', async () => {
    const t = await newPersonalToken(h);
    const created = await publish(
      h,
      t.token,
      event(h, { summary: 's', tone: 'positive', external_status: 'pending', locale: 'zh-TW', labels: { env: 'prod' } }),
    );
    expect(created.status).toBe(202);
    expect(response('post', '/api/v1/events', 202, created.body)).toEqual([]);
    const sup = await http(h, 'POST', `/api/v1/events/${created.body.deliveryId}/supplement`, { token: t.token, body: { markdown_body: 'more' } });
    expect(response('post', '/api/v1/events/{deliveryId}/supplement', 201, sup.body)).toEqual([]);
    const res = await http(h, 'POST', `/api/v1/events/${created.body.deliveryId}/resolve`, { token: t.token, body: { resolution_note: 'done' } });
    expect(response('post', '/api/v1/events/{deliveryId}/resolve', 200, res.body)).toEqual([]);
    const types = await http(h, 'GET', '/api/v1/event-types', { token: t.token });
    expect(response('get', '/api/v1/event-types', 200, types.body)).toEqual([]);
    const health = await http(h, 'GET', '/api/v1/health');
    expect(response('get', '/api/v1/health', 200, health.body)).toEqual([]);
    const ready = await http(h, 'GET', '/api/v1/ready');
    expect(ready.status).toBe(200);
    expect(response('get', '/api/v1/ready', 200, ready.body)).toEqual([]);
  });

  it('a validation problem carries its code, every issue, and only documented codes', async () => {
    const t = await newPersonalToken(h);
    const bad = await publish(h, t.token, { spec_version: '1' });
    expect(bad.status).toBe(400);
    expect(response('post', '/api/v1/events', 400, bad.body)).toEqual([]);
    // A code the response does not list is refused by its schema.
    expect(response('post', '/api/v1/events', 400, { ...bad.body, code: 'not_a_code' })).not.toEqual([]);
  });

  it('problem extension members are accepted and required by code (422 user-not-found email, 403 no_approved_request email)', async () => {
    const admin = await newUser(h, 'admin');
    const tools = await operator<{ token: string }>(h, 'tokens.create_tools', {
      owner: admin.email,
      integrator: `oa-${Date.now().toString(36)}`,
      name: 'openapi tests',
    });
    const unknown = await http(h, 'POST', '/api/v1/tokens/claim', { token: tools.token, body: { email: uniqueEmail('nobody') } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.email).toBeTruthy();
    expect(response('post', '/api/v1/tokens/claim', 422, unknown.body)).toEqual([]);
    const { email: _drop, ...withoutEmail } = unknown.body;
    expect(response('post', '/api/v1/tokens/claim', 422, withoutEmail)).not.toEqual([]);

    const member = await newUser(h);
    const unapproved = await http(h, 'POST', '/api/v1/tokens/claim', { token: tools.token, body: { email: member.email } });
    expect(unapproved.status).toBe(403);
    expect(unapproved.body).toMatchObject({ code: 'no_approved_request', email: member.email });
    expect(response('post', '/api/v1/tokens/claim', 403, unapproved.body)).toEqual([]);
  });

  it('a legacy error validates against the legacy body', async () => {
    const t = await newPersonalToken(h);
    const bad = await http(h, 'POST', '/api/internal-os/integrations/inbound/personal', { token: t.token, body: { spec_version: '2' } });
    expect(bad.status).toBe(400);
    expect(response('post', '/api/internal-os/integrations/inbound/personal', 400, bad.body, 'application/json')).toEqual([]);
    expect(component('LegacyError', bad.body)).toEqual([]);
  });

  it("the request schema is the validator's own: a documented-valid event is accepted", async () => {
    const t = await newPersonalToken(h);
    const ev = event(h, { actions: [{ label: 'Open', url: 'https://example.com/x' }] });
    expect(component('InboundEvent', ev)).toEqual([]);
    expect((await publish(h, t.token, ev)).status).toBe(202);
    expect(component('InboundEvent', { ...ev, body: 'secret' })).not.toEqual([]);
  });
});

describe('GET /api/v1/docs', () => {
  it('serves the HTML viewer with its assets', async () => {
    const html = await http(h, 'GET', '/api/v1/docs');
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    const js = await http(h, 'GET', '/api/v1/docs/assets/swagger-ui-bundle.js');
    expect(js.status).toBe(200);
    const init = await http(h, 'GET', '/api/v1/docs/assets/init.js');
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toContain('text/javascript');
    expect((await http(h, 'GET', '/api/v1/docs/assets/package.json')).status).toBe(404);
    expect((await http(h, 'GET', '/api/v1/docs/assets/constructor')).status).toBe(404);
  });
});
