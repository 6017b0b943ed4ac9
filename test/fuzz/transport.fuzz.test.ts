// Property: hostile transport-level input on every surface (SPEC Limits and "Requirements for the
// inbound POST"): chunked bodies, bodies over 256 KB, invalid UTF-8,
// nesting 5,000+ deep, wrong media types, cut JSON, garbage gRPC frames. No 5xx or internal
// code; the surface's envelope; nothing stored; the inbound POSTs and Publish RPCs accept no
// chunked or oversized body; healthy after.
import http2 from 'node:http2';
import fc from 'fast-check';
import { afterAll, beforeAll, it } from 'vitest';
import { event, startHarness, type Harness } from '../helpers/harness.js';
import { Deep, toJsonText } from './arbitraries.js';
import {
  connectReasons,
  grpcCall,
  grpcFrame,
  grpcReasons,
  legacyReasons,
  mcpAllRefused,
  mcpReasons,
  onFreshSessionIfCalmed,
  rawRequest,
  restReasons,
  type Answer,
} from './envelopes.js';
import {
  callers,
  check,
  expectHealthy,
  expectNoViolations,
  finish,
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
let session: http2.ClientHttp2Session | undefined;
const stats = newStats('transport.fuzz');
const who = callers(() => h);

beforeAll(async () => {
  h = await startHarness();
  rows = await rowCounter(h);
});
afterAll(async () => {
  finish(stats);
  session?.close();
  await rows?.close();
  await h?.close();
});

/** One HTTP/1.1 request with full control of framing: Content-Length, or chunked in pieces. */
const raw = (method: string, path: string, headers: Record<string, string>, body: Buffer, chunked: boolean): Promise<Answer> =>
  rawRequest(h.baseUrl, method, path, headers, body, chunked);

type Surface = 'rest-v1' | 'legacy' | 'mcp' | 'connect-json' | 'connect-proto' | 'grpc';
interface Target {
  surface: Surface;
  path: string;
  own: Kind;
  /** An inbound event POST or Publish RPC: no chunked body, nothing over 256 KB (SPEC Limits). */
  inbound: boolean;
}
const TARGETS: Target[] = [
  { surface: 'rest-v1', path: '/api/v1/events', own: 'personal', inbound: true },
  { surface: 'rest-v1', path: '/api/v1/events/bulk', own: 'tools', inbound: false },
  { surface: 'rest-v1', path: '/api/v1/catalog/items', own: 'tools', inbound: false },
  { surface: 'rest-v1', path: '/api/v1/tokens/claim', own: 'tools', inbound: false },
  { surface: 'legacy', path: '/api/internal-os/integrations/inbound/personal', own: 'personal', inbound: true },
  { surface: 'legacy', path: '/api/internal-os/integrations/claim/batch', own: 'tools', inbound: false },
  { surface: 'mcp', path: '/mcp', own: 'agentAdmin', inbound: false },
  { surface: 'connect-json', path: '/fluxdesk.events.v1.EventService/Publish', own: 'personal', inbound: true },
  { surface: 'connect-json', path: '/fluxdesk.catalog.v1.CatalogItemService/CreateItem', own: 'tools', inbound: false },
  { surface: 'connect-proto', path: '/fluxdesk.events.v1.EventService/Publish', own: 'personal', inbound: true },
  { surface: 'grpc', path: '/fluxdesk.events.v1.EventService/Publish', own: 'personal', inbound: true },
  { surface: 'grpc', path: '/fluxdesk.catalog.v1.CatalogItemService/ListItems', own: 'tools', inbound: false },
];

type Damage = 'chunked' | 'oversized' | 'invalid-utf8' | 'deep' | 'media-type' | 'cut' | 'empty' | 'proto-keys';
const DAMAGE: Damage[] = ['chunked', 'oversized', 'invalid-utf8', 'deep', 'media-type', 'cut', 'empty', 'proto-keys'];

/** A body the target would accept, as JSON (REST/legacy/Connect JSON) or an MCP call. */
function baseJson(t: Target): unknown {
  const e = event(h);
  if (t.path.endsWith('/Publish'))
    return { event: { specVersion: '2', eventId: e.event_id, eventType: e.event_type, severity: e.severity, title: e.title, occurredAt: e.occurred_at } };
  if (t.path.endsWith('/CreateItem') || t.path.endsWith('/catalog/items'))
    return {
      slug: `fz-${String(e.event_id)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '')}`.slice(0, 70),
      name: 'n',
      type: 'other',
      use_cases: [],
    };
  if (t.path === '/mcp') return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_feedback', arguments: { title: 't', body: 'b' } } };
  if (t.path.endsWith('/claim/batch')) return { emails: ['a@example.test'] };
  if (t.path.endsWith('/tokens/claim')) return { email: 'a@example.test' };
  if (t.path.endsWith('/bulk')) return { event: e, recipients: [{ type: 'email', email: 'a@example.test' }] };
  return e;
}

function damaged(t: Target, d: Damage, size: number, depth: number): { body: Buffer; contentType: string; chunked: boolean } {
  const json = baseJson(t) as Record<string, any>;
  const target = json.event ?? json.params?.arguments ?? json;
  const contentType = t.surface === 'connect-proto' ? 'application/proto' : t.surface === 'legacy' ? 'application/json; charset=utf-8' : 'application/json';
  switch (d) {
    case 'oversized':
      target.title = 'x'.repeat(size);
      break;
    case 'deep':
      target[json.use_cases ? 'use_cases' : 'labels'] = new Deep(depth, json.use_cases ? 'array' : 'object');
      break;
    case 'proto-keys':
      for (const k of ['__proto__', 'constructor', 'hasOwnProperty']) Object.defineProperty(target, k, { value: { polluted: true }, enumerable: true });
      break;
  }
  let text = toJsonText(json);
  if (d === 'cut') text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  if (d === 'empty') text = '';
  let body = Buffer.from(text, 'utf8');
  if (d === 'invalid-utf8') {
    const at = text.indexOf('"title":"') + 9;
    body = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from(text.slice(at))]);
  }
  return { body, contentType: d === 'media-type' ? 'text/plain' : contentType, chunked: d === 'chunked' };
}

/** A gRPC body: a frame around JSON-ish damage is garbage protobuf; plus big declared lengths and random frames. */
function grpcBody(d: Damage, size: number, seedBytes: Uint8Array): Uint8Array {
  switch (d) {
    case 'oversized':
      return grpcFrame(new Uint8Array(size).fill(0x41));
    case 'cut':
      return grpcFrame(seedBytes, 0, 64 * 1024 * 1024); // declares 64 MB, sends a few bytes
    case 'empty':
      return new Uint8Array(0);
    case 'invalid-utf8':
      return grpcFrame(Uint8Array.from([0x0a, 0x08, 0x2a, 0x06, 0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]));
    default:
      return grpcFrame(seedBytes);
  }
}

function dropSession(): void {
  session?.destroy();
  session = undefined;
}

function grpcSession(): http2.ClientHttp2Session {
  if (!session || session.closed || session.destroyed) {
    session = http2.connect(h.grpcUrl);
    session.on('error', () => (session = undefined));
  }
  return session;
}

it(
  'transport damage on every surface -> refusal in the surface envelope, never 5xx, nothing stored',
  async () => {
    const input = fc.record({
      target: fc.constantFrom(...TARGETS),
      damage: fc.constantFrom(...DAMAGE),
      size: fc.integer({ min: 270_000, max: 1_200_000 }),
      depth: fc.integer({ min: 5_000, max: 12_000 }),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 48 }),
      withToken: fc.nat({ max: 9 }).map((n) => n > 0),
    });
    await check(
      stats,
      0,
      input,
      async (v) => {
        who.tick();
        const token = v.withToken ? await who.token(v.target.own) : undefined;
        const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
        const before = await rows.snapshot();
        const t = v.target;
        let status: string;
        let reasons: string[];
        let refused: boolean;
        let serverError: boolean;
        let shown: () => string;
        if (t.surface === 'grpc') {
          const frame = grpcBody(v.damage, v.size, v.bytes);
          const a = await onFreshSessionIfCalmed(() => grpcCall(grpcSession(), t.path, frame, auth), dropSession);
          status = `grpc ${a.grpcStatus}`;
          reasons = grpcReasons(a);
          refused = a.grpcStatus !== '0';
          serverError = ['2', '13', '15'].includes(a.grpcStatus ?? '');
          if (t.inbound && v.damage === 'oversized' && !refused) reasons.push(`accepted a ${frame.length}-byte Publish`);
          shown = () => `${t.path} ${v.damage} ${frame.length} bytes [${token ? t.own : 'none'}] => ${a.grpcStatus} ${a.grpcMessage ?? ''}`;
        } else {
          let { body, contentType, chunked } = damaged(t, v.damage, v.size, v.depth);
          if (t.surface === 'connect-proto') body = Buffer.from(v.damage === 'oversized' ? new Uint8Array(v.size).fill(0x41) : v.bytes);
          const headers: Record<string, string> = { 'content-type': contentType, ...auth };
          if (t.surface === 'mcp') headers.accept = 'application/json, text/event-stream';
          if (t.surface.startsWith('connect')) headers['connect-protocol-version'] = '1';
          const a = await raw('POST', t.path, headers, body, chunked);
          status = `${a.status}${a.body?.code && t.surface.startsWith('connect') ? ` ${a.body.code}` : ''}`;
          if (a.status === 0) {
            // Closed mid-upload after an early answer is a refusal; count it, nothing else to judge.
            reasons = [];
            refused = true;
          } else {
            reasons =
              t.surface === 'rest-v1' ? restReasons(a) : t.surface === 'legacy' ? legacyReasons(a) : t.surface === 'mcp' ? mcpReasons(a) : connectReasons(a);
            refused = t.surface === 'mcp' ? mcpAllRefused(a) : a.status >= 400;
          }
          serverError = a.status >= 500 || ['internal', 'unknown', 'data_loss'].includes(a.body?.code) || /-32603/.test(a.text);
          // Chunked is refused on the two inbound JSON POSTs only (SPEC B): Connect
          // clients stream bodies by design. Over 256 KB is refused on every inbound surface.
          const chunkRule = v.damage === 'chunked' && (t.surface === 'rest-v1' || t.surface === 'legacy');
          if (t.inbound && (chunkRule || v.damage === 'oversized') && a.status >= 200 && a.status < 300)
            reasons.push(`${v.damage} inbound body accepted (${a.status})`);
          shown = () =>
            `${t.path} ${v.damage} ${body.length} bytes${chunked ? ' chunked' : ''} [${token ? t.own : 'none'}] ${short(body.toString('utf8'), 200)} => ${short(a.text, 200)}`;
        }
        if (refused) {
          const changed = rows.diff(before, await rows.snapshot());
          if (changed.length > 0) reasons.push(`refused but stored: ${changed.join(', ')}`);
        }
        record(stats, `${t.surface} (transport)`, `${t.path} ${v.damage}`, status, reasons, shown, serverError);
      },
      RUNS * 8,
    );
    await expectHealthy(h);
    expectNoViolations(stats);
  },
  60_000 + RUNS * 10_000,
);
