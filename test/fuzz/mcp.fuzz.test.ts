// Property: /mcp (SPEC C, "Agent protocol errors") answers every tools/call built from the tool's
// own inputSchema (as tools/list serves it) plus the hostile mutations, and every initialize,
// tools/list, batch and malformed JSON-RPC message, with a JSON-RPC object or array, never a 5xx
// or -32603, stores nothing when every message was refused, and stays healthy.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { arbFromSchema, hostileString, PROTO_KEYS, toJsonText, withMutations, wrongType, type GenContext } from './arbitraries.js';
import { mcpAllRefused, mcpReasons, mcpStatus, send, type Answer } from './envelopes.js';
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
let tools: Array<{ name: string; inputSchema: any }>;
const stats = newStats('mcp.fuzz');
const who = callers(() => h);

const ACCEPT = 'application/json, text/event-stream';

async function post(token: string | undefined, body: string, extra: Record<string, string> = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT, ...extra };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return send(h.baseUrl, 'POST', '/mcp', { headers, body });
}

async function judge(target: string, kind: Kind, body: string, extra?: Record<string, string>): Promise<void> {
  who.tick();
  // The caller first: a fresh token from the pool is a row of its own.
  const token = await who.token(kind);
  const before = await rows.snapshot();
  const a = await post(token, body, extra);
  const reasons = mcpReasons(a);
  if (mcpAllRefused(a)) {
    const changed = rows.diff(before, await rows.snapshot());
    if (changed.length > 0) reasons.push(`refused but stored: ${changed.join(', ')}`);
  }
  record(stats, 'mcp', target, mcpStatus(a), reasons, () => `[${kind}] ${short(body)} => ${short(a.text, 200)}`, a.status >= 500 || /-32603/.test(a.text));
}

beforeAll(async () => {
  h = await startHarness();
  rows = await rowCounter(h);
  const admin = await who.agentAdmin();
  const r = await send(h.baseUrl, 'POST', '/mcp', {
    headers: { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${admin.token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  tools = r.body.result.tools;
});
afterAll(async () => {
  finish(stats);
  await rows?.close();
  await h?.close();
});

let id = 0;
const callMsg = (name: string, args: unknown) => ({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } });

it(
  'MCP tools/call: every tool, arguments from its inputSchema, mutated -> JSON-RPC answer, nothing stored on refusal',
  async () => {
    expect(tools.length).toBeGreaterThan(50);
    const ctx: GenContext = { now: () => h.clock.now().getTime() };
    let index = 0;
    for (const tool of tools) {
      const input = fc.record({ kind: kindFor('agentAdmin'), member: fc.boolean(), args: withMutations(arbFromSchema(tool.inputSchema, ctx)) });
      await check(stats, index++, input, async (v) => {
        const kind = v.kind === 'agentAdmin' && v.member ? 'agentMember' : v.kind;
        await judge(`tools/call ${tool.name}`, kind, toJsonText(callMsg(tool.name, v.args.value)));
      });
    }
  },
  60_000 + RUNS * 10_000,
);

it(
  'MCP protocol: initialize, tools/list, ping, batches and malformed JSON-RPC -> JSON-RPC answer',
  async () => {
    const ctx: GenContext = { now: () => h.clock.now().getTime() };
    const anyTool = fc.constantFrom(...tools);
    const goodCall = anyTool.chain((t) => arbFromSchema(t.inputSchema, ctx).map((args) => callMsg(t.name, args)));
    const idArb = fc.oneof(
      fc.integer(),
      fc.string({ maxLength: 10 }),
      fc.constant(null),
      fc.constant(1.5),
      fc.constant({}),
      fc.constant([]),
      fc.constant(true),
    );
    const methodArb = fc.oneof(
      fc.constantFrom(
        'initialize',
        'tools/list',
        'tools/call',
        'ping',
        'notifications/initialized',
        'resources/list',
        'prompts/list',
        'rpc.discover',
        '',
        '__proto__',
        'constructor',
        'toString',
      ),
      hostileString.filter((s) => s.length < 500),
      wrongType,
    );
    const paramsArb = fc.oneof(
      fc.constant(undefined),
      fc.constant({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } }),
      fc.constant({ protocolVersion: '2026-07-28' }),
      fc.record({
        name: fc.oneof(
          fc.constantFrom(...tools.map((t) => t.name), ...PROTO_KEYS),
          hostileString.filter((s) => s.length < 500),
        ),
        arguments: fc.oneof(wrongType, fc.dictionary(fc.constantFrom(...PROTO_KEYS, 'x'), wrongType)),
      }),
      wrongType,
    );
    const anyMsg = fc.record(
      {
        jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: wrongType }),
        id: fc.option(idArb, { nil: undefined }),
        method: methodArb,
        params: paramsArb,
      },
      { requiredKeys: [] },
    );
    const message = fc.oneof({ weight: 3, arbitrary: goodCall }, { weight: 4, arbitrary: anyMsg }, { weight: 1, arbitrary: wrongType });
    const payload = fc.oneof(
      { weight: 3, arbitrary: withMutations(message).map((m) => toJsonText(m.value)) },
      { weight: 2, arbitrary: fc.array(message, { minLength: 0, maxLength: 25 }).map(toJsonText) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '',
          '{',
          '[',
          '[]',
          '{}',
          'null',
          '"x"',
          '[[]]',
          '{"jsonrpc":"2.0","id":1,"method":"tools/list"',
          '{"jsonrpc":"2.0","id":1,"method":"tools/list"}garbage',
          '\u0000',
          '{"__proto__":{"method":"tools/list"},"jsonrpc":"2.0","id":1}',
        ),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 200, unit: 'binary' }) },
    );
    const extra = fc.oneof(
      { weight: 4, arbitrary: fc.constant({}) },
      {
        weight: 1,
        arbitrary: fc.record(
          {
            'mcp-protocol-version': fc.constantFrom('2026-07-28', '2025-06-18', 'x'),
            'mcp-method': fc.constantFrom('tools/call', 'tools/list', 'x'),
            'mcp-name': fc.constantFrom('whoami', '=?base64?d2hvYW1p?=', '=?base64?%%%?='),
          },
          { requiredKeys: [] },
        ),
      },
      {
        weight: 1,
        arbitrary: fc.record(
          {
            'content-type': fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded', ''),
            accept: fc.constantFrom('text/event-stream', 'text/html', '*/*', ''),
          },
          { requiredKeys: [] },
        ),
      },
    );
    await check(
      stats,
      1000,
      fc.record({ kind: kindFor('agentAdmin'), payload, extra }),
      async (v) => {
        await judge('protocol', v.kind, v.payload, v.extra as Record<string, string>);
      },
      RUNS * 20,
    );
    await expectHealthy(h);
    expectNoViolations(stats);
  },
  60_000 + RUNS * 20_000,
);
