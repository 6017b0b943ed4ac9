// A thin JSON-RPC 2.0 router: envelope parsing, batches, error codes. It knows nothing of MCP
// methods or HTTP; plugin.ts feeds it bodies and maps its outcomes to HTTP. We do not wrap the
// SDK server: its batch semantics differ from the agent protocol's (STACK-NOTES "MCP").
import { readJsonBody, type BodyRead } from '../http/json-body.js';

/** Standard JSON-RPC 2.0 codes. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;

/** Batches above this size are refused whole with one -32600 (SPEC Limits "Agent batch"). */
export const MAX_BATCH = 20;
/** The gateway in front of /mcp cuts requests at 8 s (SPEC Limits "Agent batch"). */
export const GATEWAY_BUDGET_MS = 8_000;

export type RpcId = string | number;

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcResponse {
  jsonrpc: '2.0';
  id: RpcId | null;
  result?: unknown;
  error?: RpcErrorObject;
}

/** An error a method handler throws; `status` and `headers` apply when it answers a lone request. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly status?: number,
    readonly headers: Record<string, string | number> = {},
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** One message of the body, classified. */
export type Envelope =
  | { kind: 'request'; id: RpcId; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'notification'; method: string; params: Record<string, unknown> | undefined }
  /** A JSON-RPC response sent to us: we never ask the client anything, so it is dropped. */
  | { kind: 'response' }
  | { kind: 'invalid'; id: RpcId | null; error: RpcErrorObject; status: number };

/** What a handler produces for one request: a result or an error, plus HTTP hints. */
export interface Outcome {
  response: RpcResponse;
  /** HTTP status when this is the only message of the request (batches always answer 200). */
  status: number;
  headers: Record<string, string | number>;
  /**
   * `response` already serialized, exactly JSON.stringify(response), when its maker had the parts
   * as text (a tool's output: its text block and its structured content are the same JSON, made
   * once instead of walked twice).
   */
  json?: string;
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: RpcErrorObject };

/**
 * The HTTP edge's decision about a body (readJsonBody) in JSON-RPC terms: no body, or one that is
 * not JSON (UTF-8, syntax, prototype keys, depth) -> -32700. A refused media type is not a parse
 * error: the caller answers it before (HTTP 415).
 */
export function parsedFrom(read: BodyRead): Parsed {
  if (read.ok) return read.value === undefined ? { ok: false, error: { code: RPC.PARSE_ERROR, message: 'Parse error: empty body' } } : read;
  return { ok: false, error: { code: RPC.PARSE_ERROR, message: `Parse error: ${read.error.message}` } };
}

const encoder = new TextEncoder();

/** A body sent as `application/json` -> a JSON value or -32700 (the same decision as every surface). */
export function parseBody(body: Uint8Array | string | undefined): Parsed {
  return parsedFrom(readJsonBody('application/json', typeof body === 'string' ? encoder.encode(body) : body));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const validId = (v: unknown): v is RpcId => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

function invalid(id: RpcId | null, message: string, code: number = RPC.INVALID_REQUEST, data?: unknown): Envelope {
  // A malformed envelope is a 400; wrong parameter types are an ordinary -32602 answer.
  return { kind: 'invalid', id, error: data === undefined ? { code, message } : { code, message, data }, status: code === RPC.INVALID_PARAMS ? 200 : 400 };
}

/** Classifies one message (a body, or one member of a batch). */
export function classify(m: unknown): Envelope {
  if (!isPlainObject(m)) return invalid(null, 'Invalid Request: a JSON-RPC message must be an object');
  const id = validId(m.id) ? m.id : null;
  if (m.jsonrpc !== '2.0') return invalid(id, 'Invalid Request: "jsonrpc" must be "2.0"');
  if (!('method' in m)) {
    if (('result' in m || 'error' in m) && 'id' in m) return { kind: 'response' };
    return invalid(id, 'Invalid Request: "method" is required');
  }
  if (typeof m.method !== 'string' || m.method === '') return invalid(id, 'Invalid Request: "method" must be a non-empty string');
  // MCP narrows JSON-RPC: a request id is a string or a number, never null.
  if ('id' in m && !validId(m.id)) return invalid(null, 'Invalid Request: "id" must be a string or a number');
  let params: Record<string, unknown> | undefined;
  if (m.params !== undefined) {
    if (!isPlainObject(m.params)) {
      // MCP methods take named parameters only.
      return invalid(id, 'Invalid params: "params" must be an object', RPC.INVALID_PARAMS, {
        type: 'INVALID_INPUT',
        field: 'params',
        errors: [{ field: 'params', code: 'invalid_type', message: 'must be an object' }],
      });
    }
    params = m.params;
  }
  if (!('id' in m)) return { kind: 'notification', method: m.method, params };
  return { kind: 'request', id: m.id as RpcId, method: m.method, params };
}

export function errorResponse(id: RpcId | null, error: RpcErrorObject): RpcResponse {
  return { jsonrpc: '2.0', id, error };
}

export type Handler = (env: Extract<Envelope, { kind: 'request' | 'notification' }>) => Promise<Outcome | null>;

export interface RunOptions {
  budgetMs?: number;
  /** Methods allowed at most once per body (a second `initialize` in a batch is -32600). */
  oncePerBatch?: readonly string[];
  /** Reports a handler that threw something other than RpcError (logged once, answered -32603). */
  onUnexpected?: (err: unknown) => void;
}

/** Budget outcome for a member that did not finish in time. */
function budgetExceeded(id: RpcId, started: boolean, budgetMs: number): Outcome {
  return {
    response: errorResponse(id, {
      code: RPC.INTERNAL_ERROR,
      message: 'gateway budget exceeded',
      data: {
        type: 'GATEWAY_TIMEOUT',
        budgetMs,
        // A started call may still complete on the server; one never started had no effect.
        started,
      },
    }),
    status: 504,
    headers: {},
  };
}

function fromThrown(id: RpcId, err: unknown, opts: RunOptions): Outcome {
  if (err instanceof RpcError) {
    return {
      response: errorResponse(id, err.data === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, data: err.data }),
      status: err.status ?? 200,
      headers: err.headers,
    };
  }
  opts.onUnexpected?.(err);
  return { response: errorResponse(id, { code: RPC.INTERNAL_ERROR, message: 'Internal error', data: { type: 'INTERNAL_ERROR' } }), status: 500, headers: {} };
}

/**
 * Runs the messages of one body in order, one at a time, inside one time budget. Returns one entry
 * per message: an Outcome for requests and invalid members, null for notifications and responses.
 * A member still running when the budget ends, and every member after it, answers -32603
 * "gateway budget exceeded"; the members that finished keep their answers.
 */
export async function runMessages(envs: readonly Envelope[], handle: Handler, opts: RunOptions = {}): Promise<Array<Outcome | null>> {
  const budgetMs = opts.budgetMs ?? GATEWAY_BUDGET_MS;
  const deadline = Date.now() + budgetMs;
  const seen = new Set<string>();
  const out: Array<Outcome | null> = [];
  // Set once a member times out: a timer may fire a millisecond before Date.now() reaches the
  // deadline, and nothing may start after the budget has been declared spent.
  let spent = false;
  for (const env of envs) {
    if (env.kind === 'response') {
      out.push(null);
      continue;
    }
    if (env.kind === 'invalid') {
      out.push({ response: errorResponse(env.id, env.error), status: env.status, headers: {} });
      continue;
    }
    if (opts.oncePerBatch?.includes(env.method)) {
      if (seen.has(env.method)) {
        out.push(
          env.kind === 'request'
            ? {
                response: errorResponse(env.id, { code: RPC.INVALID_REQUEST, message: `Invalid Request: at most one "${env.method}" per batch` }),
                status: 400,
                headers: {},
              }
            : null,
        );
        continue;
      }
      seen.add(env.method);
    }
    const remaining = deadline - Date.now();
    if (spent || remaining <= 0) {
      out.push(env.kind === 'request' ? budgetExceeded(env.id, false, budgetMs) : null);
      continue;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), remaining);
    });
    const run = handle(env).then(
      (o) => ({ o }),
      (err: unknown) => ({ err }),
    );
    const settled = await Promise.race([run, timeout]);
    clearTimeout(timer);
    if (settled === 'timeout') spent = true;
    if (env.kind === 'notification') {
      out.push(null);
      continue;
    }
    if (settled === 'timeout') out.push(budgetExceeded(env.id, true, budgetMs));
    else if ('err' in settled) out.push(fromThrown(env.id, settled.err, opts));
    else out.push(settled.o);
  }
  return out;
}
