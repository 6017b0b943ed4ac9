// Property: the legacy POST endpoints under /api/internal-os (SPEC B), fed bodies generated from
// the same schemas the REST document serves (InboundEvent, ClaimTokenRequest, the approval body)
// plus the hostile mutations, answer without 5xx, errors as `{error, ...}` (SPEC "Legacy 400
// body"), store nothing when they refuse, and leave the server healthy.
import fc from 'fast-check';
import { afterAll, beforeAll, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { arbFromSchema, toJsonText, withMutations, type GenContext } from './arbitraries.js';
import { legacyReasons, send } from './envelopes.js';
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
let schemas: Record<string, any>;
const stats = newStats('legacy.fuzz');
const who = callers(() => h);

beforeAll(async () => {
  h = await startHarness();
  rows = await rowCounter(h);
  schemas = (await send(h.baseUrl, 'GET', '/api/v1/openapi.json')).body.components.schemas;
});
afterAll(async () => {
  finish(stats);
  await rows?.close();
  await h?.close();
});

it(
  'legacy POST endpoints: generated and mutated bodies -> {error} envelope, nothing stored on refusal',
  async () => {
    const ctx: GenContext = { defs: schemas, now: () => h.clock.now().getTime() };
    const email = schemas.ClaimTokenRequest.properties.email;
    const routes: Array<{ path: string; own: Kind; schema: any }> = [
      { path: '/api/internal-os/integrations/inbound/personal', own: 'personal', schema: { $ref: '#/components/schemas/InboundEvent' } },
      // Any JSON body (SPEC B); the internal-os types are reachable here.
      { path: '/api/internal-os/integrations/inbound/personal/ping', own: 'personal', schema: {} },
      { path: '/api/internal-os/integrations/claim', own: 'tools', schema: { type: 'object', properties: { email }, required: ['email'] } },
      {
        path: '/api/internal-os/integrations/claim/batch',
        own: 'tools',
        schema: { type: 'object', properties: { emails: { type: 'array', items: email, maxItems: 60 } }, required: ['emails'] },
      },
      { path: '/api/internal-os/integrations/claim/ping', own: 'tools', schema: {} },
      { path: '/api/internal-os/integrations/catalog/approval', own: 'tools', schema: { $ref: '#/components/schemas/CatalogApprovalRevokeRequest' } },
      {
        path: '/api/internal-os/agent/connect-callback',
        own: 'none',
        schema: { type: 'object', properties: { session_id: { type: 'string', maxLength: 200 } } },
      },
    ];
    const internalType = fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme-ascii' }).map((s) => `internal-os.${s}`);
    let index = 0;
    for (const route of routes) {
      const hints = route.path.endsWith('/personal')
        ? {
            event_type: fc.oneof(
              internalType,
              fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme-ascii' }).map((s) => `personal.${s}`),
            ),
          }
        : undefined;
      const input = fc.record({ kind: kindFor(route.own), body: withMutations(arbFromSchema(route.schema, { ...ctx, hints })) });
      await check(stats, index++, input, async (v) => {
        who.tick();
        const token = await who.token(v.kind);
        const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
        if (token !== undefined) headers.authorization = `Bearer ${token}`;
        const body = toJsonText(v.body.value);
        const before = await rows.snapshot();
        const a = await send(h.baseUrl, 'POST', route.path, { headers, body });
        const reasons = legacyReasons(a);
        if (a.status >= 400) {
          const changed = rows.diff(before, await rows.snapshot());
          if (changed.length > 0) reasons.push(`refused but stored: ${changed.join(', ')}`);
        }
        record(stats, 'legacy', route.path, String(a.status), reasons, () => `[${v.kind}] ${short(body)} => ${short(a.text, 200)}`, a.status >= 500);
      });
    }
    await expectHealthy(h);
    expectNoViolations(stats);
  },
  60_000 + RUNS * 4_000,
);
