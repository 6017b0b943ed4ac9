// The agent protocol surface (SPEC C): POST /mcp, JSON-RPC 2.0 over streamable HTTP, stateless.
// Its own encapsulated plugin with its own body parser and error handler: every answer, even a
// refused one, is a JSON-RPC body (never problem+json, never a bare 5xx for bad input).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../app/deps.js';
import { runOperation, toDomainError } from '../../app/run-operation.js';
import type { Logger } from '../../domain/context.js';
import type { Principal } from '../../domain/principal.js';
import { agentSession, type AgentSession } from '../../domain/tokens/open-agent-session.js';
import { fastifyErrorToDomain, readJsonBody } from '../http/json-body.js';
import { header } from '../http/invoke.js';
import { MCP_CODES, wholeRequestError } from './errors.js';
import {
  classify,
  errorResponse,
  GATEWAY_BUDGET_MS,
  MAX_BATCH,
  parsedFrom,
  RPC,
  RpcError,
  runMessages,
  type Envelope,
  type Outcome,
  type RpcResponse,
} from './jsonrpc.js';
import {
  countRequest,
  dispatch,
  isSupportedVersion,
  metaProtocolVersion,
  STATELESS_PROTOCOL_VERSIONS,
  unsupportedVersion,
  type CallContext,
} from './methods.js';

export interface McpOptions {
  deps: AppDeps;
  serviceVersion: string;
  errorsBaseUrl: string;
  /** Time budget of one POST (the 8 s gateway timeout); lower in tests. */
  budgetMs?: number;
}

/** What the reply carries: a JSON-RPC body (object or array), or nothing (202). */
interface Answer {
  status: number;
  body?: RpcResponse | RpcResponse[];
  /** Each message of `body` as JSON text, where the outcome came serialized (Outcome.json). */
  json?: Array<string | undefined>;
  headers: Record<string, string | number>;
}

function fromRpcError(err: RpcError, id: RpcResponse['id'] = null): Answer {
  return {
    status: err.status ?? 400,
    body: errorResponse(id, err.data === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, data: err.data }),
    headers: err.headers,
  };
}

/** SSE only when the client accepts event streams and not JSON (SPEC C; MCP clients send both). */
function wantsEventStream(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept
    .split(',')
    .map((part) => {
      const [type, ...ps] = part.trim().toLowerCase().split(';');
      const q = ps.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { type: type!.trim(), q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((t) => t.q > 0)
    .map((t) => t.type);
  const json = types.some((t) => t === 'application/json' || t === 'application/*' || t === '*/*');
  return !json && types.includes('text/event-stream');
}

/** Decodes the `=?base64?...?=` sentinel of MCP 2026-07-28 header values. */
function headerValue(v: string): string {
  const m = /^=\?base64\?(.*)\?=$/.exec(v);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : v;
}

/**
 * MCP 2026-07-28 mirrors the body into headers so gateways can route without parsing; a lone
 * stateless request must carry them and they must agree with the body (-32020, HTTP 400).
 */
function checkStatelessHeaders(req: FastifyRequest, env: Envelope): RpcError | null {
  if (env.kind !== 'request' && env.kind !== 'notification') return null;
  const declared = metaProtocolVersion(env.params);
  if (declared === undefined || !STATELESS_PROTOCOL_VERSIONS.includes(declared)) return null;
  const mismatch = (what: string) => new RpcError(MCP_CODES.HEADER_MISMATCH, `Header mismatch: ${what}`, undefined, 400);
  const pv = header(req, 'mcp-protocol-version');
  if (pv !== declared)
    return mismatch(pv === undefined ? 'MCP-Protocol-Version header is required' : `MCP-Protocol-Version '${pv}' does not match _meta '${declared}'`);
  if (env.kind === 'notification') return null; // this revision defines no header rules for notification POSTs
  const method = header(req, 'mcp-method');
  if (method !== env.method)
    return mismatch(method === undefined ? 'Mcp-Method header is required' : `Mcp-Method '${method}' does not match body '${env.method}'`);
  if (env.method === 'tools/call') {
    const name = env.params?.name;
    const raw = header(req, 'mcp-name');
    if (raw === undefined) return mismatch('Mcp-Name header is required for tools/call');
    if (headerValue(raw) !== name) return mismatch(`Mcp-Name '${raw}' does not match body '${String(name)}'`);
  }
  return null;
}

/**
 * Body -> classified messages, or the error refusing the whole body. Media type, charset, UTF-8,
 * JSON, prototype keys and depth are the HTTP edge's one decision (readJsonBody), answered here as
 * JSON-RPC: a refused media type -32600 (HTTP 415), a body that is not JSON -32700 (HTTP 400).
 */
function readMessages(req: FastifyRequest, authorization: string | undefined): { batch: boolean; envs: Envelope[] } | RpcError {
  const read = readJsonBody(header(req, 'content-type'), req.body as Buffer | undefined);
  if (!read.ok && read.error.kind !== 'validation') return wholeRequestError(read.error, authorization);
  const parsed = parsedFrom(read);
  if (!parsed.ok) return new RpcError(parsed.error.code, parsed.error.message, undefined, 400);
  const batch = Array.isArray(parsed.value);
  const messages: unknown[] = batch ? (parsed.value as unknown[]) : [parsed.value];
  if (batch && messages.length === 0) return new RpcError(RPC.INVALID_REQUEST, 'Invalid Request: empty batch', { type: 'INVALID_REQUEST' }, 400);
  // Refused whole, before anything runs: a batch is a unit of at most MAX_BATCH messages.
  if (messages.length > MAX_BATCH)
    return new RpcError(RPC.INVALID_REQUEST, `batch too large (max ${MAX_BATCH})`, { type: 'BATCH_TOO_LARGE', max: MAX_BATCH, received: messages.length }, 400);
  return { batch, envs: messages.map(classify) };
}

export async function mcpPlugin(app: FastifyInstance, opts: McpOptions): Promise<void> {
  const { deps } = opts;
  const budgetMs = opts.budgetMs ?? GATEWAY_BUDGET_MS;

  // Bodies are read whole here and decided after authentication (readMessages), so a refused body is
  // a JSON-RPC error like any other and a bad token is one 401 whatever the body holds.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.setErrorHandler((err, req, reply) => {
    const de = fastifyErrorToDomain(err) ?? toDomainError(err, req.log as unknown as Logger);
    return send(req, reply, fromRpcError(wholeRequestError(de, header(req, 'authorization'))));
  });

  const notAllowed = async (req: FastifyRequest, reply: FastifyReply) =>
    send(req, reply, {
      status: 405,
      // Stateless: no server-initiated stream (GET) and no session to delete (DELETE).
      headers: { allow: 'POST' },
      body: errorResponse(null, {
        code: RPC.INVALID_REQUEST,
        message: `${req.method} is not supported at /mcp: POST JSON-RPC messages; this server opens no server-initiated stream and keeps no sessions`,
      }),
    });
  app.route({ method: ['GET', 'DELETE', 'PUT', 'PATCH'], url: '/mcp', exposeHeadRoute: true, handler: notAllowed });

  // DNS-rebinding protection (MCP streamable HTTP): Host and, when sent, Origin must name this
  // service: loopback names or the host of PUBLIC_BASE_URL. Anything else is refused with 403.
  const allowedHosts = new Set(['localhost', '127.0.0.1', '[::1]', '::1', new URL(deps.config.publicBaseUrl).hostname.toLowerCase()]);
  const hostOf = (v: string | undefined, isOrigin: boolean): string | null => {
    if (v === undefined) return null;
    try {
      return new URL(isOrigin ? v : `http://${v}`).hostname.toLowerCase();
    } catch {
      return '';
    }
  };
  app.addHook('onRequest', async (req, reply) => {
    const host = hostOf(header(req, 'host'), false);
    const origin = hostOf(header(req, 'origin'), true);
    if ((host !== null && !allowedHosts.has(host)) || (origin !== null && !allowedHosts.has(origin))) {
      return send(req, reply, {
        status: 403,
        headers: {},
        body: errorResponse(null, {
          code: RPC.INVALID_REQUEST,
          message: 'Host or Origin is not this service (DNS-rebinding protection); use the PUBLIC_BASE_URL host',
        }),
      });
    }
  });

  app.post('/mcp', async (req, reply) => send(req, reply, await handlePost(req)));

  async function handlePost(req: FastifyRequest): Promise<Answer> {
    const log = req.log as unknown as Logger;
    const authorization = header(req, 'authorization');
    // Authenticate once for the whole body: a bad token is one 401, whatever the body holds.
    let session: AgentSession;
    let principal: Principal;
    try {
      ({ output: session, principal } = await runOperation(deps, agentSession, { surface: 'mcp', requestId: req.id, authorization, input: {}, log }));
    } catch (err) {
      return fromRpcError(wholeRequestError(toDomainError(err, log), authorization));
    }

    // Every request of this POST reuses this authentication (one token lookup per POST, not per call).
    const ctx: CallContext = {
      deps,
      session,
      principal,
      requestId: req.id,
      authorization,
      log,
      serviceVersion: opts.serviceVersion,
      errorsBaseUrl: opts.errorsBaseUrl,
    };
    // Each request counts once as it runs (methods.ts dispatch). A POST that runs none (refused
    // whole, or only notifications and responses) still counts once: every authenticated call does.
    const countPost = async (id: RpcResponse['id']): Promise<{ refused: Answer } | { headers: Record<string, string | number> }> => {
      try {
        return { headers: await countRequest(ctx) };
      } catch (err) {
        return { refused: fromRpcError(err as RpcError, id) };
      }
    };
    /** The whole POST refused: counted once, and -32005 (HTTP 429) instead when its budget is spent. */
    const refuseWhole = async (refusal: RpcError, id: RpcResponse['id']): Promise<Answer> => {
      const counted = await countPost(id);
      if ('refused' in counted) return counted.refused;
      const a = fromRpcError(refusal, id);
      return { ...a, headers: { ...counted.headers, ...a.headers } };
    };

    const read = readMessages(req, authorization);
    if (read instanceof RpcError) return refuseWhole(read, null);
    const { batch, envs } = read;
    const loneId = !batch && envs[0]!.kind === 'request' ? envs[0]!.id : null;
    // Earlier revisions send the negotiated version as a header; one we do not serve is refused.
    const pv = header(req, 'mcp-protocol-version');
    if (pv !== undefined && !isSupportedVersion(pv)) return refuseWhole(unsupportedVersion(pv), loneId);
    if (!batch) {
      const headerError = checkStatelessHeaders(req, envs[0]!);
      if (headerError) return refuseWhole(headerError, loneId);
    }
    let postHeaders: Record<string, string | number> = {};
    if (!envs.some((e) => e.kind === 'request')) {
      const counted = await countPost(null);
      if ('refused' in counted) return counted.refused;
      postHeaders = counted.headers;
    }

    const outcomes = await runMessages(envs, (env) => dispatch(ctx, env), {
      budgetMs,
      oncePerBatch: ['initialize'],
      onUnexpected: (err) => log.error({ err }, 'unexpected error in an MCP method'),
    });
    const answered = outcomes.filter((o): o is Outcome => o !== null);
    // Only notifications (or responses): accepted, nothing to say.
    if (answered.length === 0) return { status: 202, headers: postHeaders };
    if (!batch)
      return { status: answered[0]!.status, body: answered[0]!.response, json: [answered[0]!.json], headers: { ...postHeaders, ...answered[0]!.headers } };
    // A batch answers 200 with one member per request, matched by id; each failure stays in its member.
    const headers: Record<string, string | number> = { ...postHeaders };
    for (const o of answered) Object.assign(headers, o.headers);
    delete headers['www-authenticate'];
    return { status: 200, body: answered.map((o) => o.response), json: answered.map((o) => o.json), headers };
  }

  function send(req: FastifyRequest, reply: FastifyReply, a: Answer): FastifyReply {
    for (const [k, v] of Object.entries(a.headers)) reply.header(k, v);
    reply.code(a.status);
    if (a.body === undefined) return reply.send();
    const messages = (Array.isArray(a.body) ? a.body : [a.body]).map((m, i) => a.json?.[i] ?? JSON.stringify(m));
    if (a.status === 200 && wantsEventStream(header(req, 'accept'))) {
      // One `message` event per response, in request order, then the stream ends.
      const events = messages.map((m) => `event: message\ndata: ${m}\n\n`).join('');
      return reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no').type('text/event-stream').send(events);
    }
    return reply.type('application/json; charset=utf-8').send(Array.isArray(a.body) ? `[${messages.join(',')}]` : messages[0]);
  }
}
