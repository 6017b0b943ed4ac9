// The MCP methods served at POST /mcp: initialize, ping, tools/list, tools/call, server/discover,
// and notifications. Each tools/call is exactly one runOperation (surface `mcp`); this file only
// maps JSON-RPC params in and results or errors out. Every request counts once against the
// token's windows (SPEC Limits "Agent rate"): a tool call in its own operation, any other request
// as one agentRequest (countRequest) before it is answered.
import { z } from 'zod';
import type { AppDeps } from '../../app/deps.js';
import { runOperation, toDomainError } from '../../app/run-operation.js';
import type { Logger } from '../../domain/context.js';
import type { Principal } from '../../domain/principal.js';
import { agentRequest } from '../../domain/tokens/meter-agent-request.js';
import type { AgentSession } from '../../domain/tokens/open-agent-session.js';
import type { RateLimitInfo } from '../../domain/errors.js';
import { setRateLimitHeaders } from '../http/response-headers.js';
import { hasScope } from '../../domain/tokens/scopes.rules.js';
import { fieldPath } from '../../domain/validation.js';
import { classifyToolError, MCP_CODES, toolErrorEnvelope, wholeRequestError } from './errors.js';
import { RPC, RpcError, type Envelope, type Outcome, type RpcId } from './jsonrpc.js';
import { TOOLS_BY_NAME } from './tools/index.js';

/** Newest first. A client asking for one of these gets it back; anything else gets the newest. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];
/** Revisions without the initialize handshake: every request carries its version in params._meta. */
export const STATELESS_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

export const INSTRUCTIONS =
  'fluxdesk agent tools act on your own data with your visibility. The protocol (tools, scopes, errors, limits) is at GET /api/internal-os/agent/protocol.';

const CAPABILITIES = { tools: { listChanged: false } };

export interface CallContext {
  deps: AppDeps;
  session: AgentSession;
  /** The POST's authentication, reused by each tools/call (Invocation.authenticated). */
  principal: Principal;
  requestId: string;
  authorization: string | undefined;
  log: Logger;
  serviceVersion: string;
  errorsBaseUrl: string;
}

type Message = Extract<Envelope, { kind: 'request' | 'notification' }>;

const InitializeParams = z.looseObject({
  protocolVersion: z.string().min(1),
  capabilities: z.looseObject({}).optional(),
  clientInfo: z.looseObject({ name: z.string(), version: z.string() }).optional(),
});
const ListToolsParams = z.looseObject({ cursor: z.string().optional() });
const CallToolParams = z.looseObject({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

function parseParams<T>(schema: z.ZodType<T>, params: Record<string, unknown> | undefined): T {
  const r = schema.safeParse(params ?? {});
  if (r.success) return r.data;
  const errors = r.error.issues.map((i) => ({ field: fieldPath(i.path), code: i.code, message: i.message }));
  throw new RpcError(RPC.INVALID_PARAMS, `Invalid params: ${errors[0]!.field || 'params'} ${errors[0]!.message}`, {
    type: 'INVALID_INPUT',
    field: errors[0]!.field,
    errors,
  });
}

/** The version a request declares in `_meta` (stateless revisions), if any. */
export function metaProtocolVersion(params: Record<string, unknown> | undefined): string | undefined {
  const meta = params?._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const v = (meta as Record<string, unknown>)[META_PROTOCOL_VERSION];
  return typeof v === 'string' ? v : undefined;
}

export const isSupportedVersion = (v: string): boolean => (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(v);

export function unsupportedVersion(requested: string): RpcError {
  return new RpcError(
    MCP_CODES.UNSUPPORTED_PROTOCOL_VERSION,
    `Unsupported protocol version: ${requested}`,
    { supported: [...SUPPORTED_PROTOCOL_VERSIONS], requested },
    400,
  );
}

function ok(id: RpcId, result: Record<string, unknown>, headers: Record<string, string | number> = {}, json?: string): Outcome {
  return { response: { jsonrpc: '2.0', id, result }, status: 200, headers, ...(json === undefined ? {} : { json }) };
}

/**
 * A successful tool call's response as JSON text: the output serialized once, as the text block
 * (escaped) and as the structured content (as is). The same text as JSON.stringify of the
 * response object ok() builds from the same parts (key order included).
 */
function toolResultJson(id: RpcId, text: string, structured: boolean): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"isError":false${structured ? `,"structuredContent":${text}` : ''}}}`;
}

function serverInfo(c: CallContext) {
  return { name: 'fluxdesk', title: 'fluxdesk', version: c.serviceVersion };
}

function visibleTools(scopes: readonly string[]) {
  return [...TOOLS_BY_NAME.values()]
    .filter(({ listing }) => listing.requiredScopes.length === 0 || hasScope(scopes, listing.requiredScopes))
    .map((t) => t.listing);
}

type ToolCall = { tool: NonNullable<ReturnType<typeof TOOLS_BY_NAME.get>>; args: Record<string, unknown> };

/** The tool a tools/call names, with its arguments; -32602 for bad params or an unknown tool. */
function toolCall(params: Record<string, unknown> | undefined): ToolCall {
  const p = parseParams(CallToolParams, params);
  const tool = TOOLS_BY_NAME.get(p.name);
  // MCP: an unknown tool is an invalid-params error (the roster is version-dependent; tools/list is the truth).
  if (!tool)
    throw new RpcError(RPC.INVALID_PARAMS, `Unknown tool: ${p.name}`, {
      type: 'INVALID_INPUT',
      field: 'name',
      errors: [{ field: 'name', code: 'unknown_tool', message: `no tool named ${p.name}; call tools/list` }],
    });
  return { tool, args: p.arguments ?? {} };
}

function rateHeaders(rateLimit: RateLimitInfo | undefined): Record<string, string | number> {
  const h: Record<string, string | number> = {};
  setRateLimitHeaders((k, v) => {
    h[k] = v;
  }, rateLimit);
  return h;
}

/**
 * Counts one request that runs no operation of its own (or a POST without any request) against the
 * token's windows, through the runner like a tool call; its X-RateLimit-* headers, or the -32005
 * (HTTP 429, Retry-After) refusal thrown.
 */
export async function countRequest(c: CallContext): Promise<Record<string, string | number>> {
  try {
    const { rateLimit } = await runOperation(c.deps, agentRequest, {
      surface: 'mcp',
      requestId: c.requestId,
      authorization: c.authorization,
      authenticated: c.principal,
      input: {},
      log: c.log,
    });
    return rateHeaders(rateLimit);
  } catch (err) {
    throw wholeRequestError(toDomainError(err, c.log), c.authorization);
  }
}

async function callTool(c: CallContext, id: RpcId, { tool, args }: ToolCall): Promise<Outcome> {
  // The tool is one of TOOLS_BY_NAME (the live list): a bounded label (docs/metrics.md).
  const meter = c.deps.metrics.tool(tool.def.name);
  const started = performance.now();
  try {
    const { output, rateLimit } = await runOperation(c.deps, tool.def.operation, {
      surface: 'mcp',
      requestId: c.requestId,
      authorization: c.authorization,
      authenticated: c.principal,
      input: args,
      log: c.log,
    });
    // JSON.stringify (native) makes flat text; a page written by hand in JavaScript (a rope of a
    // string per piece) cost as much for one call and half again in a batch of 20.
    const text = JSON.stringify(output);
    const result: Record<string, unknown> = { content: [{ type: 'text', text }], isError: false };
    if (tool.def.output) result.structuredContent = output;
    meter.observe(performance.now() - started, 'ok');
    return ok(id, result, rateHeaders(rateLimit), toolResultJson(id, text, tool.def.output !== undefined));
  } catch (err) {
    const de = toDomainError(err, c.log);
    const how = classifyToolError(de, c.authorization);
    meter.observe(performance.now() - started, how.kind === 'rpc' ? 'protocol_error' : 'tool_error');
    if (how.kind === 'rpc') throw how.error;
    // The tool's own failure: the call itself succeeded at the protocol level.
    const envelope = toolErrorEnvelope(de, tool.def.errorForm ?? 'flat', c.errorsBaseUrl);
    return ok(id, { content: [{ type: 'text', text: JSON.stringify(envelope) }], isError: true });
  }
}

/** With tracing on, a span per tool call (`tools/call <tool>`); its operation's span is its child. */
function tracedCallTool(c: CallContext, id: RpcId, call: ToolCall): Promise<Outcome> {
  const tracer = c.deps.tracer;
  if (tracer === null) return callTool(c, id, call);
  const name = call.tool.def.name;
  return tracer.inSpan(
    `tools/call ${name}`,
    'internal',
    { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': name },
    async (span) => {
      const outcome = await callTool(c, id, call);
      // The tool's own failure is a result (isError), not an exception: shown on the span too.
      if ((outcome.response.result as { isError?: boolean } | undefined)?.isError) span.fail({ type: 'tool_error', fault: false });
      return outcome;
    },
    (err) => (err instanceof RpcError ? { type: `jsonrpc_${err.code}`, fault: err.code === RPC.INTERNAL_ERROR } : { type: 'internal', fault: true }),
  );
}

/** Answers one message; null for notifications (they never get a response). */
export async function dispatch(c: CallContext, env: Message): Promise<Outcome | null> {
  // notifications/initialized, notifications/cancelled, ...: nothing to do statelessly. Not counted
  // one by one: a POST holding no request counts once (plugin.ts).
  if (env.kind === 'notification') return null;

  const declared = metaProtocolVersion(env.params);
  const supported = declared === undefined || isSupportedVersion(declared);
  const stateless = declared !== undefined && STATELESS_PROTOCOL_VERSIONS.includes(declared);
  let call: ToolCall | undefined;
  if (supported && env.method === 'tools/call') {
    try {
      call = toolCall(env.params);
    } catch {
      // Answered (and counted) below like any request that runs no tool.
    }
  }
  // A tool call counts in its own operation; every other request here, before it is answered
  // (a refusal is this member's -32005).
  const counted = call ? {} : await countRequest(c);
  let outcome: Outcome;
  try {
    if (!supported) throw unsupportedVersion(declared!);
    outcome = call ? await tracedCallTool(c, env.id, call) : await answer(c, env.id, env.method, env.params, stateless);
  } catch (err) {
    // Its error still reports the budget this request used.
    if (err instanceof RpcError) for (const [k, v] of Object.entries(counted)) err.headers[k] ??= v;
    throw err;
  }
  outcome.headers = { ...counted, ...outcome.headers };
  // Stateless revisions: every result says it is complete and who produced it.
  if (stateless && outcome.response.result) {
    // The result changes: a text made before (Outcome.json) no longer says it.
    delete outcome.json;
    outcome.response.result = {
      resultType: 'complete',
      ...(outcome.response.result as object),
      _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo(c) },
    };
  }
  return outcome;
}

async function answer(c: CallContext, id: RpcId, method: string, params: Record<string, unknown> | undefined, stateless: boolean): Promise<Outcome> {
  switch (method) {
    case 'initialize': {
      const p = parseParams(InitializeParams, params);
      const protocolVersion = isSupportedVersion(p.protocolVersion) ? p.protocolVersion : LATEST_PROTOCOL_VERSION;
      return ok(id, { protocolVersion, capabilities: CAPABILITIES, serverInfo: serverInfo(c), instructions: INSTRUCTIONS });
    }
    case 'server/discover':
      return ok(id, {
        supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
        capabilities: CAPABILITIES,
        serverInfo: serverInfo(c),
        instructions: INSTRUCTIONS,
        ttlMs: 3_600_000,
        cacheScope: 'public',
      });
    case 'ping':
      return ok(id, {});
    case 'tools/list': {
      parseParams(ListToolsParams, params);
      const result: Record<string, unknown> = { tools: visibleTools(c.session.scopes) };
      // The list depends on the token's scopes: cacheable only within the same authorization.
      if (stateless) Object.assign(result, { ttlMs: 300_000, cacheScope: 'private' });
      return ok(id, result);
    }
    case 'tools/call': {
      // Only a call that names no tool, or with bad params, comes here: its -32602, counted under
      // the tool `other` (a name a client sends is never a label value).
      let call: ToolCall;
      try {
        call = toolCall(params);
      } catch (err) {
        c.deps.metrics.tool('other').observe(0, 'protocol_error');
        throw err;
      }
      return callTool(c, id, call);
    }
    default:
      // MCP 2026-07-28 answers an unknown method with HTTP 404; earlier revisions with 200.
      throw new RpcError(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`, undefined, stateless ? 404 : 200);
  }
}
