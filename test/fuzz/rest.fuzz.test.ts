// Property: every REST v1 route in the served OpenAPI document, fed bodies, path parameters,
// query strings and headers generated from its own schemas plus hostile mutations,
// answers without 5xx, errors as problem+json (SPEC "REST v1 error envelope"), stores nothing when
// it refuses, and leaves the server healthy.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { arbFromSchema, encodeLoose, hostileString, queryString, toJsonText, withMutations, type GenContext } from './arbitraries.js';
import { restReasons, send } from './envelopes.js';
import {
  callers,
  check,
  expectHealthy,
  expectNoViolations,
  finish,
  kindFor,
  newStats,
  record,
  rowCounter,
  RUNS,
  short,
  type Kind,
  type RowCounter,
} from './fuzz-kit.js';

let h: Harness;
let rows: RowCounter;
let doc: any;
const stats = newStats('rest.fuzz');
const who = callers(() => h);

beforeAll(async () => {
  h = await startHarness();
  rows = await rowCounter(h);
  const r = await send(h.baseUrl, 'GET', '/api/v1/openapi.json');
  doc = r.body;
});
afterAll(async () => {
  finish(stats);
  await rows?.close();
  await h?.close();
});

/** The caller a route is documented for (SPEC Authentication 7). */
function ownKind(path: string): Kind {
  if (path === '/api/v1/events/bulk') return 'tools';
  if (path.startsWith('/api/v1/events') || path === '/api/v1/event-types') return 'personal';
  if (path.startsWith('/api/v1/catalog') || path.startsWith('/api/v1/tokens') || path === '/api/v1/integrators') return 'tools';
  return 'none';
}

const OWN = Symbol('own');

interface Input {
  kind: Kind;
  params: Record<string, unknown>;
  query: string;
  body?: { value: unknown; mutations: unknown[] };
  idempotencyKey?: string;
  requestId?: string;
}

it(
  'REST v1: every route, generated and mutated input -> documented answer, nothing stored on refusal',
  async () => {
    const ctx: GenContext = {
      defs: doc.components.schemas,
      now: () => h.clock.now().getTime(),
      hints: { event_type: fc.string({ minLength: 1, maxLength: 30, unit: 'grapheme-ascii' }).map((s) => `personal.${s}`.slice(0, 60)) },
    };
    // REST v1 only: the document also describes the older endpoints and /mcp (their own fuzz suites).
    const routes = Object.entries<any>(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, ops]) => Object.entries<any>(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));
    expect(routes.length).toBeGreaterThan(15);
    let index = 0;
    for (const { path, method, op } of routes) {
      const params: any[] = op.parameters ?? [];
      const pathParams: Record<string, fc.Arbitrary<unknown>> = {};
      for (const p of params.filter((p) => p.in === 'path')) {
        pathParams[p.name] = fc.oneof(
          { weight: 3, arbitrary: fc.constant(OWN) },
          { weight: 2, arbitrary: arbFromSchema(p.schema, ctx) },
          { weight: 1, arbitrary: hostileString.filter((s) => s.length < 3000) },
        );
      }
      const query: Record<string, fc.Arbitrary<unknown>> = {};
      for (const p of params.filter((p) => p.in === 'query')) query[p.name] = arbFromSchema(p.schema, ctx);
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const printable = fc.string({ minLength: 1, maxLength: 260, unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)) });
      const input: fc.Arbitrary<Input> = fc.record(
        {
          kind: kindFor(ownKind(path)),
          params: fc.record(pathParams, { noNullPrototype: true }),
          query: queryString(query),
          body: bodySchema ? withMutations(arbFromSchema(bodySchema, ctx)) : fc.constant(undefined),
          idempotencyKey: fc.option(printable, { nil: undefined }),
          requestId: fc.option(printable, { nil: undefined }),
        },
        { requiredKeys: ['kind', 'params', 'query'] },
      );
      await check(stats, index++, input, async (v) => {
        who.tick();
        const token = await who.token(v.kind);
        let url = path;
        for (const [name, value] of Object.entries(v.params)) {
          let s: string;
          if (value === OWN) s = name === 'deliveryId' ? (await who.personal()).deliveryId : (await who.tools()).catalogSlug;
          else s = String(value);
          url = url.replace(`{${name}}`, encodeLoose(s));
        }
        if (v.query) url += `?${v.query}`;
        const headers: Record<string, string> = {};
        if (token !== undefined) headers.authorization = `Bearer ${token}`;
        if (v.idempotencyKey) headers['idempotency-key'] = v.idempotencyKey;
        if (v.requestId) headers['x-request-id'] = v.requestId;
        let body: string | undefined;
        if (v.body) {
          body = toJsonText(v.body.value);
          headers['content-type'] = 'application/json';
        }
        const before = await rows.snapshot();
        const a = await send(h.baseUrl, method, url, { headers, body });
        const reasons = restReasons(a);
        if (a.status >= 400) {
          const changed = rows.diff(before, await rows.snapshot());
          if (changed.length > 0) reasons.push(`refused but stored: ${changed.join(', ')}`);
        }
        record(
          stats,
          'rest-v1',
          `${method} ${path}`,
          String(a.status),
          reasons,
          () => `${method} ${short(url, 300)} [${v.kind}] ${body === undefined ? '' : short(body)}`,
          a.status >= 500,
        );
      });
    }
    await expectHealthy(h);
    expectNoViolations(stats);
  },
  60_000 + RUNS * 4_000,
);
