// Sending one fuzz input and judging the answer against the surface's documented envelope
// (SPEC Errors: problem+json on REST v1, `{error, ...}` on the legacy endpoints, `{code, message}`
// for Connect, a grpc-status trailer for gRPC, JSON-RPC objects on /mcp). Each checker returns
// the reasons the answer breaks the contract (empty: fine).
import http from 'node:http';
import http2 from 'node:http2';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

const TIMEOUT_MS = 20_000;

/** One HTTP/1.1 request; a body string is sent as UTF-8 (lone surrogates become U+FFFD). */
export async function send(
  baseUrl: string,
  method: string,
  urlPath: string,
  opts: { headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Promise<Answer> {
  const res = await fetch(`${baseUrl}${urlPath}`, {
    method,
    headers: opts.headers,
    body: opts.body as BodyInit | undefined,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/**
 * One HTTP/1.1 request with full control of what goes on the wire: the path as given (no
 * normalisation, bad escapes kept), repeated headers (an array value), Content-Length or chunked
 * framing, no body at all (undefined). A connection the server closed mid-upload after an early
 * answer (413, 431) is status 0.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  urlPath: string,
  headers: Record<string, string | string[]>,
  body: Buffer | undefined,
  chunked = false,
): Promise<Answer> {
  const url = new URL(baseUrl);
  const framing: Record<string, string> = body === undefined ? {} : chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path: urlPath, headers: { ...headers, ...framing }, timeout: TIMEOUT_MS }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        const hs = new Headers();
        for (const [k, v] of Object.entries(res.headers)) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) hs.append(k, x);
        resolve({ status: res.statusCode ?? 0, headers: hs, text, body: parsed });
      });
    });
    req.on('error', (e: NodeJS.ErrnoException) =>
      e.code === 'EPIPE' || e.code === 'ECONNRESET'
        ? resolve({ status: 0, headers: new Headers(), text: `connection closed: ${e.code}`, body: undefined })
        : reject(e),
    );
    req.on('timeout', () => req.destroy(new Error(`no answer in ${TIMEOUT_MS / 1000} s`)));
    if (body !== undefined && chunked) {
      for (let i = 0; i < body.length; i += 4096) req.write(body.subarray(i, i + 4096));
      req.end();
    } else req.end(body);
  });
}

const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** REST v1: no 5xx; every error is application/problem+json with type, title, status, detail, requestId. */
export function restReasons(a: Answer): string[] {
  const r: string[] = [];
  if (a.status >= 500) r.push(`HTTP ${a.status}`);
  // 414 and 431 come from Node's HTTP parser (URL or headers over its 16 KB limit) before any
  // route runs; a refusal, though not one the service renders.
  if (a.status === 414 || a.status === 431) return r;
  if (a.status >= 400) {
    if (!/^application\/problem\+json/.test(a.headers.get('content-type') ?? ''))
      r.push(`error content-type ${a.headers.get('content-type')}: ${a.text.slice(0, 160)}`);
    const b = a.body;
    if (!isObj(b)) r.push('error body is not a JSON object');
    else {
      for (const k of ['type', 'title', 'detail', 'requestId']) if (typeof b[k] !== 'string') r.push(`problem.${k} missing`);
      if (b.status !== a.status) r.push(`problem.status ${b.status} != ${a.status}`);
      if (b.fieldErrors !== undefined && !isObj(b.fieldErrors)) r.push('fieldErrors is not an object');
    }
  }
  if (!a.headers.get('x-request-id')) r.push('no X-Request-Id');
  return r;
}

/** Legacy /api/internal-os/*: no 5xx; every error is a JSON object with a string `error`. */
export function legacyReasons(a: Answer): string[] {
  const r: string[] = [];
  if (a.status >= 500) r.push(`HTTP ${a.status}`);
  if (a.status >= 400) {
    if (!isObj(a.body) || typeof a.body.error !== 'string') r.push('error body has no string `error`');
    if (isObj(a.body) && a.body.error === 'schema_invalid' && !Array.isArray(a.body.errors)) r.push('schema_invalid without errors[]');
  } else if (!isObj(a.body)) r.push('success body is not a JSON object');
  return r;
}

const CONNECT_CODES = new Set([
  'canceled',
  'unknown',
  'invalid_argument',
  'deadline_exceeded',
  'not_found',
  'already_exists',
  'permission_denied',
  'resource_exhausted',
  'failed_precondition',
  'aborted',
  'out_of_range',
  'unimplemented',
  'internal',
  'unavailable',
  'data_loss',
  'unauthenticated',
]);
/** Codes that say "the server broke" rather than "your input was refused". */
const CONNECT_SERVER_CODES = new Set(['internal', 'unknown', 'data_loss']);

/** Connect unary (JSON or binary): no 5xx, no `internal`; an error is JSON `{code, message}`. */
export function connectReasons(a: Answer): string[] {
  const r: string[] = [];
  if (a.status >= 500) r.push(`HTTP ${a.status}`);
  // An unsupported media type is answered before the protocol is known: bare HTTP 415 (Connect
  // protocol, "Unsupported Media Type").
  if (a.status === 415) return r;
  if (a.status !== 200) {
    const b = a.body;
    if (!isObj(b) || typeof b.code !== 'string' || !CONNECT_CODES.has(b.code)) r.push(`error body is not Connect JSON: ${a.text.slice(0, 120)}`);
    else {
      if (CONNECT_SERVER_CODES.has(b.code)) r.push(`connect code ${b.code}`);
      if (b.message !== undefined && typeof b.message !== 'string') r.push('message is not a string');
    }
  }
  return r;
}

export const connectStatus = (a: Answer): string => (a.status === 200 ? '200' : `${a.status} ${a.body?.code ?? '?'}`);

export interface GrpcAnswer {
  httpStatus: number;
  grpcStatus: string | undefined;
  grpcMessage: string | undefined;
  bytes: number;
}

/** One gRPC call over h2c on the gRPC listener: `frame` is the whole request body (prefix included). */
export function grpcCall(session: http2.ClientHttp2Session, procedure: string, frame: Uint8Array, headers: Record<string, string> = {}): Promise<GrpcAnswer> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':method': 'POST', ':path': procedure, 'content-type': 'application/grpc+proto', te: 'trailers', ...headers });
    let httpStatus = 0;
    let grpcStatus: string | undefined;
    let grpcMessage: string | undefined;
    let bytes = 0;
    // The call is over once the status is known (trailers, or a trailers-only answer): a server
    // that refuses a large body answers before reading it all, as gRPC clients expect.
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (!req.closed) req.close(http2.constants.NGHTTP2_CANCEL);
      resolve({ httpStatus, grpcStatus, grpcMessage, bytes });
    };
    const timer = setTimeout(() => {
      done = true;
      req.close(http2.constants.NGHTTP2_CANCEL);
      reject(new Error(`gRPC ${procedure}: no answer in ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    req.on('response', (h) => {
      httpStatus = Number(h[':status']);
      if (h['grpc-status'] !== undefined) grpcStatus = String(h['grpc-status']);
      if (h['grpc-message'] !== undefined) grpcMessage = String(h['grpc-message']);
      if (grpcStatus !== undefined) setImmediate(finish);
    });
    req.on('trailers', (t) => {
      if (t['grpc-status'] !== undefined) grpcStatus = String(t['grpc-status']);
      if (t['grpc-message'] !== undefined) grpcMessage = String(t['grpc-message']);
      finish();
    });
    req.on('data', (d: Buffer) => (bytes += d.length));
    req.on('error', (e) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(e);
    });
    req.on('close', finish);
    req.end(frame);
  });
}

/**
 * Node's HTTP/2 server ends a session whose client has reset thousands of streams (rapid-reset
 * protection, GOAWAY / ENHANCE_YOUR_CALM): these properties cancel every stream they are answered
 * on, so a long run meets it. A real client reconnects: so does this one, once, for that error only.
 */
export async function onFreshSessionIfCalmed<T>(call: () => Promise<T>, dropSession: () => void): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (!String((e as Error)?.message).includes('ENHANCE_YOUR_CALM')) throw e;
    dropSession();
    return call();
  }
}

/** gRPC: HTTP 200 with a grpc-status; never 13 INTERNAL, 2 UNKNOWN or 15 DATA_LOSS. */
export function grpcReasons(a: GrpcAnswer): string[] {
  const r: string[] = [];
  if (a.httpStatus >= 500) r.push(`HTTP ${a.httpStatus}`);
  if (a.grpcStatus === undefined) r.push('no grpc-status');
  else if (['2', '13', '15'].includes(a.grpcStatus)) r.push(`grpc-status ${a.grpcStatus} (${a.grpcMessage ?? ''})`);
  return r;
}

/** A gRPC length-prefixed message frame. */
export function grpcFrame(payload: Uint8Array, flags = 0, declaredLength = payload.length): Uint8Array {
  const out = new Uint8Array(5 + payload.length);
  out[0] = flags;
  new DataView(out.buffer).setUint32(1, declaredLength >>> 0);
  out.set(payload, 5);
  return out;
}

/** Parses an MCP answer: JSON, or the `data:` lines of an event stream. */
export function mcpMessages(a: Answer): unknown {
  if ((a.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const msgs = a.text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => JSON.parse(l.slice(5)));
    return msgs.length === 1 ? msgs[0] : msgs;
  }
  return a.body;
}

function rpcObjectReasons(m: unknown): string[] {
  if (!isObj(m)) return ['response is not an object'];
  const r: string[] = [];
  if (m.jsonrpc !== '2.0') r.push('jsonrpc != 2.0');
  if (!('id' in m)) r.push('no id');
  if ('result' in m === 'error' in m) r.push('needs exactly one of result and error');
  if ('error' in m) {
    if (!isObj(m.error) || typeof m.error.code !== 'number' || typeof m.error.message !== 'string') r.push('error lacks code/message');
    else if (m.error.code === -32603) r.push(`-32603 ${m.error.message}`);
  }
  if ('result' in m && isObj(m.result) && Array.isArray(m.result.content)) {
    const text = m.result.content[0]?.text;
    if (typeof text === 'string') {
      try {
        const out = JSON.parse(text);
        // A structured tool error of type `internal` is the tool-level 500.
        if (isObj(out) && isObj(out.error) && out.error.type === 'internal') r.push(`tool error internal: ${text.slice(0, 160)}`);
        if (isObj(out) && typeof out.error === 'string' && /internal/i.test(out.error)) r.push(`tool error ${out.error.slice(0, 160)}`);
      } catch {
        r.push('content[0].text is not JSON');
      }
    }
  }
  return r;
}

/** /mcp: no 5xx; a JSON-RPC object or array (or an empty 202 for notifications only). */
export function mcpReasons(a: Answer): string[] {
  const r: string[] = [];
  if (a.status >= 500) r.push(`HTTP ${a.status}`);
  if (a.status === 202 && a.text === '') return r;
  let msgs: unknown;
  try {
    msgs = mcpMessages(a);
  } catch {
    return [...r, `unparseable body: ${a.text.slice(0, 120)}`];
  }
  if (Array.isArray(msgs)) {
    if (msgs.length === 0) r.push('empty array answer');
    for (const m of msgs) r.push(...rpcObjectReasons(m));
  } else r.push(...rpcObjectReasons(msgs));
  return r;
}

/** Did /mcp refuse the input (a JSON-RPC error, or a tool error result)? Per message; all refused = nothing may be stored. */
export function mcpAllRefused(a: Answer): boolean {
  if (a.status >= 400) return true;
  let msgs: unknown;
  try {
    msgs = mcpMessages(a);
  } catch {
    return true;
  }
  const list = Array.isArray(msgs) ? msgs : [msgs];
  return list.every((m: any) => m?.error !== undefined || m?.result?.isError === true);
}

export const mcpStatus = (a: Answer): string => {
  let msgs: any;
  try {
    msgs = mcpMessages(a);
  } catch {
    return `${a.status} ?`;
  }
  const first = Array.isArray(msgs) ? msgs[0] : msgs;
  const detail = first?.error ? String(first.error.code) : first?.result?.isError ? 'isError' : 'ok';
  return `${a.status} ${Array.isArray(msgs) ? 'batch ' : ''}${detail}`;
};
