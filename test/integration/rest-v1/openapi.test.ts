// The OpenAPI document describes what the server really does: every documented operation is a
// route, and real responses validate against the documented schemas (JSON Schema 2020-12).
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';

let h: Harness;
let doc: any;
let ajv: InstanceType<typeof Ajv2020.default>;

beforeAll(async () => {
  h = await startHarness();
  doc = (await http(h, 'GET', '/api/v1/openapi.json')).body;
  ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
});
afterAll(async () => {
  await h?.close();
});

function validate(name: string, value: unknown): string[] {
  const v = ajv.getSchema(`#/components/schemas/${name}`)!;
  return v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe('GET /api/v1/openapi.json', () => {
  it('is OpenAPI 3.1 with the API version of the spec', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.25.935');
  });

  it('documents only routes the server has', () => {
    for (const [p, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
      const route = p.replace(/\{(\w+)\}/g, ':$1');
      for (const method of Object.keys(ops)) expect(h.svc.app.hasRoute({ method: method.toUpperCase() as 'GET', url: route }), `${method} ${p}`).toBe(true);
    }
  });

  it('real responses validate against the documented schemas', async () => {
    const t = await newPersonalToken(h);
    const created = await publish(h, t.token, event(h, { summary: 's', tone: 'positive', external_status: 'pending', locale: 'zh-TW', labels: { env: 'prod' } }));
    expect(validate('Delivery', created.body)).toEqual([]);
    const sup = await http(h, 'POST', `/api/v1/events/${created.body.deliveryId}/supplement`, { token: t.token, body: { markdown_body: 'more' } });
    expect(validate('Delivery', sup.body)).toEqual([]);
    const res = await http(h, 'POST', `/api/v1/events/${created.body.deliveryId}/resolve`, { token: t.token, body: { resolution_note: 'done' } });
    expect(validate('Delivery', res.body)).toEqual([]);
    const types = await http(h, 'GET', '/api/v1/event-types', { token: t.token });
    expect(validate('EventTypesResponse', types.body)).toEqual([]);
    const bad = await publish(h, t.token, { spec_version: '1' });
    expect(validate('Problem', bad.body)).toEqual([]);
    const health = await http(h, 'GET', '/api/v1/health');
    expect(validate('Health', health.body)).toEqual([]);
  });

  it('the request schema is the validator\'s own: a documented-valid event is accepted', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h, { actions: [{ label: 'Open', url: 'https://example.com/x' }] });
    expect(validate('InboundEvent', ev)).toEqual([]);
    expect((await publish(h, t.token, ev)).status).toBe(202);
    expect(validate('InboundEvent', { ...ev, body: 'secret' })).not.toEqual([]);
  });

  it('serves the HTML viewer with its assets', async () => {
    const html = await http(h, 'GET', '/api/v1/docs');
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    const js = await http(h, 'GET', '/api/v1/docs/assets/swagger-ui-bundle.js');
    expect(js.status).toBe(200);
    expect((await http(h, 'GET', '/api/v1/docs/assets/package.json')).status).toBe(404);
  });
});
