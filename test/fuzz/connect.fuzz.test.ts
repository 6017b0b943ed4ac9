// Property: every unary procedure of every Connect service (the generated descriptors in gen/),
// called with messages built from its request descriptor (string fields take the published JSON
// schema of the same field name when there is one, so many requests get past validation) and with
// garbage, over Connect JSON and Connect binary on the main port and gRPC on the gRPC port:
// never a 5xx, Connect `internal`/`unknown` or grpc-status 13/2; errors in the protocol's
// envelope; nothing stored on refusal; the server healthy after.
import http2 from 'node:http2';
import fc from 'fast-check';
import { toBinary, toJson, type DescMessage, type DescService } from '@bufbuild/protobuf';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AccountService } from '../../gen/fluxdesk/account/v1/account_pb.js';
import { CatalogApprovalService, CatalogItemService, IntegratorService } from '../../gen/fluxdesk/catalog/v1/catalog_pb.js';
import { CatalogPortalService } from '../../gen/fluxdesk/catalog/v1/catalog_portal_pb.js';
import { EventService } from '../../gen/fluxdesk/events/v1/events_pb.js';
import { InboxService, ViewerService } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { ModerationService } from '../../gen/fluxdesk/moderation/v1/moderation_pb.js';
import { NotificationSettingsService } from '../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { ToolsTokenService } from '../../gen/fluxdesk/tokens/v1/tokens_pb.js';
import { DocService } from '../../gen/fluxdesk/work/v1/docs_pb.js';
import { FeedbackService } from '../../gen/fluxdesk/work/v1/feedback_pb.js';
import { ProjectService } from '../../gen/fluxdesk/work/v1/projects_pb.js';
import { RepositoryService } from '../../gen/fluxdesk/work/v1/repositories_pb.js';
import { SearchService } from '../../gen/fluxdesk/work/v1/search_pb.js';
import { TaskService } from '../../gen/fluxdesk/work/v1/tasks_pb.js';
import { Health } from '../../gen/grpc/health/v1/health_pb.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import {
  applyMutation,
  garbageProtobuf,
  indexSchemas,
  mutation,
  protoMessage,
  toJsonText,
  type GenContext,
  type Mutation,
  type ProtoGen,
} from './arbitraries.js';
import { connectReasons, connectStatus, grpcCall, grpcFrame, grpcReasons, onFreshSessionIfCalmed, send } from './envelopes.js';
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

const SERVICES: Array<{ service: DescService; own: Kind }> = [
  { service: EventService, own: 'personal' },
  { service: ToolsTokenService, own: 'tools' },
  { service: CatalogApprovalService, own: 'tools' },
  { service: CatalogItemService, own: 'tools' },
  { service: IntegratorService, own: 'tools' },
  { service: CatalogPortalService, own: 'agentAdmin' },
  { service: AccountService, own: 'agentAdmin' },
  { service: NotificationSettingsService, own: 'agentAdmin' },
  { service: ModerationService, own: 'agentAdmin' },
  { service: InboxService, own: 'agentAdmin' },
  { service: ViewerService, own: 'agentAdmin' },
  { service: ProjectService, own: 'agentAdmin' },
  { service: TaskService, own: 'agentAdmin' },
  { service: DocService, own: 'agentAdmin' },
  { service: FeedbackService, own: 'agentAdmin' },
  { service: RepositoryService, own: 'agentAdmin' },
  { service: SearchService, own: 'agentAdmin' },
  { service: Health, own: 'none' },
];

let h: Harness;
let rows: RowCounter;
let gen: ProtoGen;
let session: http2.ClientHttp2Session | undefined;
const stats = newStats('connect.fuzz');
const who = callers(() => h);

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

beforeAll(async () => {
  h = await startHarness();
  rows = await rowCounter(h);
  const doc = (await send(h.baseUrl, 'GET', '/api/v1/openapi.json')).body;
  const admin = await who.agentAdmin();
  const list = await send(h.baseUrl, 'POST', '/mcp', {
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${admin.token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const ctx: GenContext = { defs: doc.components.schemas, now: () => h.clock.now().getTime() };
  const index = indexSchemas([...Object.values<any>(doc.components.schemas), ...list.body.result.tools.map((t: any) => t.inputSchema)], doc.components.schemas);
  gen = { index, ctx };
});
afterAll(async () => {
  finish(stats);
  session?.close();
  await rows?.close();
  await h?.close();
});

type Wire = 'connect-json' | 'connect-proto' | 'grpc';

interface Input {
  kind: Kind;
  wire: Wire;
  /** A message built from the descriptor, or bytes that are not one. */
  payload: { msg: unknown } | { garbage: Uint8Array };
  /** Applied to the JSON form (Connect JSON only). */
  mutations: Array<[Mutation, number]>;
  invalidUtf8: boolean;
  /** gRPC frame damage: none, a declared length longer than the bytes, the compressed flag, a cut prefix. */
  frame: 'ok' | 'long' | 'compressed' | 'cut';
}

function jsonBody(desc: DescMessage, v: Input): Uint8Array {
  let text: string;
  if ('garbage' in v.payload) text = Buffer.from(v.payload.garbage).toString('latin1');
  else {
    let json: unknown;
    try {
      json = toJson(desc, v.payload.msg as any);
    } catch {
      json = {};
    }
    text = toJsonText(v.mutations.reduce((acc, [m, pick]) => applyMutation(acc, m, pick), json));
  }
  const bytes = Buffer.from(text, 'utf8');
  if (!v.invalidUtf8) return bytes;
  // Bytes that are no UTF-8 inside the first string value (REST refuses them).
  const at = text.indexOf(':"');
  if (at < 0) return Buffer.concat([Buffer.from([0xff, 0xfe]), bytes]);
  const cut = Buffer.byteLength(text.slice(0, at + 2), 'utf8');
  return Buffer.concat([bytes.subarray(0, cut), Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80, 0xff]), bytes.subarray(cut)]);
}

function binaryBody(desc: DescMessage, v: Input): Uint8Array {
  return 'garbage' in v.payload ? v.payload.garbage : toBinary(desc, v.payload.msg as any);
}

it(
  'Connect JSON, Connect binary and gRPC: every unary procedure -> documented error envelope, never internal, nothing stored on refusal',
  async () => {
    let index = 0;
    const procedures = SERVICES.flatMap(({ service, own }) =>
      service.methods.filter((m) => m.methodKind === 'unary').map((m) => ({ service, method: m, own })),
    );
    expect(procedures.length).toBeGreaterThan(40);
    for (const { service, method, own } of procedures) {
      const procedure = `/${service.typeName}/${method.name}`;
      const input: fc.Arbitrary<Input> = fc.record({
        kind: kindFor(own),
        wire: fc.constantFrom<Wire>('connect-json', 'connect-proto', 'grpc'),
        payload: fc.oneof(
          { weight: 4, arbitrary: protoMessage(method.input, gen).map((msg): Input['payload'] => ({ msg })) },
          { weight: 1, arbitrary: garbageProtobuf.map((garbage): Input['payload'] => ({ garbage })) },
        ),
        mutations: fc.array(fc.tuple(mutation, fc.nat()), { maxLength: 2 }).map((ms) => ms as Array<[Mutation, number]>),
        invalidUtf8: fc.nat({ max: 7 }).map((n) => n === 0),
        frame: fc.oneof(
          { weight: 8, arbitrary: fc.constant('ok' as const) },
          { weight: 1, arbitrary: fc.constantFrom('long' as const, 'compressed' as const, 'cut' as const) },
        ),
      });
      await check(stats, index++, input, async (v) => {
        who.tick();
        const token = await who.token(v.kind);
        const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
        const before = await rows.snapshot();
        let refused: boolean;
        let status: string;
        let reasons: string[];
        let serverError: boolean;
        let shown: () => string;
        if (v.wire === 'grpc') {
          const payload = binaryBody(method.input, v);
          const frame =
            v.frame === 'cut'
              ? grpcFrame(payload).subarray(0, 3)
              : grpcFrame(payload, v.frame === 'compressed' ? 1 : 0, v.frame === 'long' ? payload.length + 100 : payload.length);
          const a = await onFreshSessionIfCalmed(() => grpcCall(grpcSession(), procedure, frame, auth), dropSession);
          reasons = grpcReasons(a);
          status = `grpc ${a.grpcStatus}`;
          refused = a.grpcStatus !== '0';
          serverError = a.httpStatus >= 500 || ['2', '13', '15'].includes(a.grpcStatus ?? '');
          shown = () => `[${v.kind}] frame ${v.frame} ${Buffer.from(frame).toString('hex').slice(0, 4000)} => ${a.grpcStatus} ${a.grpcMessage ?? ''}`;
        } else {
          const json = v.wire === 'connect-json';
          const body = json ? jsonBody(method.input, v) : binaryBody(method.input, v);
          const a = await send(h.baseUrl, 'POST', procedure, {
            headers: { 'content-type': json ? 'application/json' : 'application/proto', 'connect-protocol-version': '1', ...auth },
            body,
          });
          reasons = connectReasons(a);
          status = connectStatus(a);
          refused = a.status !== 200;
          serverError = a.status >= 500 || ['internal', 'unknown', 'data_loss'].includes(a.body?.code);
          shown = () =>
            `[${v.kind}] ${json ? short(Buffer.from(body).toString('utf8')) : Buffer.from(body).toString('hex').slice(0, 4000)} => ${short(a.text, 200)}`;
        }
        if (refused) {
          const changed = rows.diff(before, await rows.snapshot());
          if (changed.length > 0) reasons.push(`refused but stored: ${changed.join(', ')}`);
        }
        record(stats, v.wire, procedure, status, reasons, shown, serverError);
      });
    }
    await expectHealthy(h);
    expectNoViolations(stats);
  },
  60_000 + RUNS * 8_000,
);
