// How both listeners serve the Connect routes (Fastify on PORT through fastifyConnectPlugin, the h2c
// server on GRPC_PORT through connectNodeAdapter): body bounds, the request gate that refuses a
// caller before its body is read, strict UTF-8, and the codes of malformed requests.
//
// Body bounds (README "Body limits"): connect-es reads a unary body whole (or a gRPC frame whole,
// as its 5-byte prefix declares) before anything else looks at it, up to ~4 GiB by default. Every
// method gets a `readMaxBytes`; over it the call ends with resource_exhausted (Connect: HTTP 429)
// as soon as a Content-Length or a frame prefix says so, or once that many bytes have arrived.
import {
  Code,
  ConnectError,
  createContextKey,
  type ConnectRouter,
  type ConnectRouterOptions,
  type HandlerContext,
  type Interceptor,
} from '@connectrpc/connect';
import type { DescMethod, DescService } from '@bufbuild/protobuf';
import { EventService } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import { Health } from '../../../gen/grpc/health/v1/health_pb.js';
import type { AppDeps } from '../../app/deps.js';
import { runOperation } from '../../app/run-operation.js';
import type { Logger } from '../../domain/context.js';
import { DomainError, unauthenticated, validationFailed } from '../../domain/errors.js';
import { checkAgentBearer } from '../../domain/tokens/check-agent-bearer.js';
import { checkInboundBearer } from '../../domain/tokens/check-inbound-bearer.js';
import { parseAuthorization } from '../../domain/tokens/token-format.rules.js';
import { requestIdFrom } from '../http/request-id.js';
import { REQUEST_ID } from './call.js';
import { SESSION_PRINCIPAL, sessionOfCall } from './session-auth.js';
import { toConnectError } from './errors.js';
import { connectRoutes } from './routes.js';
import { fastBrotli, fastGzip } from './compression.js';
import { metricsInterceptor } from './metrics-interceptor.js';
import { tracingInterceptor } from './tracing-interceptor.js';
import { REFLECTION_SERVICES } from './reflection.js';

const KB = 1024;

/** Every method not named in METHOD_READ_MAX_BYTES: ample for any valid request of the spec's bounds. */
export const DEFAULT_READ_MAX_BYTES = 1024 * KB;

/**
 * Publish: the spec's 256 KB for inbound event POSTs. PublishBulk: one event (256 KB) plus up to
 * 100 recipients (each at most ~1 KB even as fully escaped JSON: email 120, display 80 chars).
 */
export const METHOD_READ_MAX_BYTES: ReadonlyMap<DescMethod, number> = new Map<DescMethod, number>([
  [EventService.method.publish, 256 * KB],
  [EventService.method.publishBulk, 512 * KB],
]);

/**
 * Bodies that may be larger than this (or of unknown size: gRPC sends no Content-Length) are read
 * only after the bearer token was looked up; smaller ones only after its shape was checked.
 */
export const LOOKUP_BEFORE_READING_ABOVE_BYTES = 64 * KB;

/** Services anyone may call (no bearer). */
const ANONYMOUS_SERVICES: ReadonlySet<string> = new Set([Health.typeName, ...REFLECTION_SERVICES]);

export type Protocols = Required<Pick<ConnectRouterOptions, 'grpc' | 'grpcWeb' | 'connect'>>;

/** Set once the implementation is reached: everything before it is reading the caller's bytes. */
const ENTERED = createContextKey(false, { description: 'implementation entered' });

/** Options for one listener's Connect router (fastifyConnectPlugin or connectNodeAdapter), routes included. */
export function connectServing(
  deps: AppDeps,
  protocols: Protocols,
  listener: { http1: boolean },
): ConnectRouterOptions & { routes: (router: ConnectRouter) => void } {
  const routes = connectRoutes(deps);
  return {
    ...protocols,
    readMaxBytes: DEFAULT_READ_MAX_BYTES,
    // Fast settings (compression.ts); the same two encodings connect-node accepts by default.
    acceptCompression: [fastGzip, fastBrotli],
    requestGate: requestGate(deps, listener.http1),
    interceptors: [markEntered, metricsInterceptor(deps.metrics), tracingInterceptor(deps.log, deps.tracer)],
    // Connect JSON is decoded with a fatal decoder: invalid UTF-8 is invalid_argument, as on the JSON
    // surfaces, instead of U+FFFD stored in its place. (Binary protobuf strings are already checked:
    // protobuf-es verifies UTF-8 for proto3 strings.)
    jsonOptions: { textDecoder: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }) } as ConnectRouterOptions['jsonOptions'],
    routes: (router) => routes(boundedRouter(router, protocols)),
  };
}

/**
 * A router whose `service()` registers a service with a method of its own bound method by method
 * (connect-es takes `readMaxBytes` per service or per rpc). The protocol switches are repeated
 * because per-rpc options replace the listener's.
 */
function boundedRouter(router: ConnectRouter, protocols: Protocols): ConnectRouter {
  const bounded: ConnectRouter = {
    handlers: router.handlers,
    service(service: DescService, impl: Record<string, unknown>, options?: ConnectRouterOptions) {
      if (!service.methods.some((m) => METHOD_READ_MAX_BYTES.has(m))) {
        router.service(service, impl as never, options);
        return bounded;
      }
      for (const method of service.methods) {
        const fn = impl[method.localName];
        if (typeof fn !== 'function') throw new Error(`${service.typeName}.${method.name} has no implementation`);
        router.rpc(method as never, fn.bind(impl) as never, {
          ...protocols,
          ...options,
          readMaxBytes: METHOD_READ_MAX_BYTES.get(method) ?? DEFAULT_READ_MAX_BYTES,
        });
      }
      return bounded;
    },
    rpc: (...args: Parameters<ConnectRouter['rpc']>) => {
      router.rpc(...args);
      return bounded;
    },
  } as ConnectRouter;
  return bounded;
}

const markEntered: Interceptor = (next) => (req) => {
  req.contextValues.set(ENTERED, true);
  return next(req);
};

/**
 * Runs when the headers are in, before any byte of the body is read (connect-es requestGate):
 * refuses a missing or malformed bearer at once and, when the body may be large, an unknown,
 * revoked or suspended token too. A store failure lets the call through: the operation then
 * authenticates itself, and the body stays bounded by readMaxBytes.
 */
function requestGate(deps: AppDeps, http1: boolean) {
  return async (ctx: HandlerContext): Promise<void> => {
    const requestId = requestIdFrom(ctx.requestHeader.get('x-request-id') ?? undefined);
    ctx.values.set(REQUEST_ID, requestId);
    ctx.responseHeader.set('x-request-id', requestId);
    ctx.signal.addEventListener('abort', () => onEarlyError(ctx, http1), { once: true });

    if (ANONYMOUS_SERVICES.has(ctx.service.typeName)) return;
    const authorization = ctx.requestHeader.get('authorization') ?? undefined;
    // The web app: no Authorization header, a session cookie and x-csrf-token instead.
    if (authorization === undefined && (await gateSession(deps, ctx, requestId))) return;
    const parsed = parseAuthorization(authorization);
    if (!parsed.ok) throw toConnectError(unauthenticated(parsed.code, parsed.message));
    if (!mayBeLarge(ctx)) return;
    try {
      await runOperation(deps, parsed.family === 'agent' ? checkAgentBearer : checkInboundBearer, {
        surface: 'connect',
        channel: 'v1',
        requestId,
        authorization,
        input: {},
        log: deps.log.child({ requestId, procedure: ctx.method.name }) as Logger,
      });
    } catch (err) {
      if (err instanceof DomainError && err.kind !== 'internal' && err.kind !== 'unavailable') throw toConnectError(err);
    }
  };
}

/**
 * A request with a session cookie is authenticated here, before its body is read: the session's
 * user goes to the handler in SESSION_PRINCIPAL (call.ts runs the operation as that user). False
 * when there is no session cookie (the bearer rules apply, unchanged).
 */
async function gateSession(deps: AppDeps, ctx: HandlerContext, requestId: string): Promise<boolean> {
  const principal = await sessionOfCall(deps, ctx, requestId);
  if (!principal) return false;
  ctx.values.set(SESSION_PRINCIPAL, principal);
  return true;
}

function mayBeLarge(ctx: HandlerContext): boolean {
  const length = ctx.requestHeader.get('content-length');
  if (length === null || !/^\d{1,15}$/.test(length)) return true;
  return Number(length) > LOOKUP_BEFORE_READING_ABOVE_BYTES;
}

/**
 * An error before the implementation was reached is about the request itself (its token, size or
 * bytes). connect-es codes a body it cannot decode as `internal` (binary protobuf: "parse binary:
 * ..."; a compressed frame without an encoding; a gzip stream that ends early) and a gRPC body
 * without exactly one message as `unimplemented`: such a request is malformed, invalid_argument
 * (Connect HTTP 400, grpc-status 3), never a server error a sender would retry. Its own errors
 * carry no ErrorInfo, which every fluxdesk error has (errors.proto): added here, with the codes the
 * JSON surfaces use. The handler aborts the call's context with the error just before it renders
 * it, so the error is completed here in place.
 * On HTTP/1.1 the rest of an unread body would have to be drained before the connection could
 * carry another request: the connection is closed instead, as Fastify does for its own body errors.
 */
function onEarlyError(ctx: HandlerContext, http1: boolean): void {
  const reason: unknown = ctx.signal.reason;
  if (!(reason instanceof ConnectError)) return;
  // A streaming call (grpc.reflection) reads its messages after the implementation was entered.
  if (ctx.values.get(ENTERED) && !(ctx.method.methodKind !== 'unary' && READ_FAILURE.test(reason.rawMessage))) return;
  if (reason.code === Code.Internal || (reason.code === Code.Unimplemented && reason.rawMessage.startsWith('protocol error:'))) {
    (reason as { code: Code }).code = Code.InvalidArgument;
  }
  if (reason.details.length === 0) {
    const de = domainErrorOf(reason, ctx.requestHeader.get('content-type') ?? '');
    if (de) reason.details.push(...toConnectError(de).details);
  }
  if (http1) ctx.responseHeader.set('connection', 'close');
}

/** connect-es's messages for a request body it could not read (see onEarlyError). */
const READ_FAILURE = /^(parse binary: |received compressed envelope|decompression failed|protocol error: )/;

/** The DomainError a JSON surface would answer for a body connect-es refused (for its details). */
function domainErrorOf(err: ConnectError, contentType: string): DomainError | undefined {
  if (err.code === Code.ResourceExhausted) return new DomainError('payload_too_large', err.rawMessage, { code: 'payload_too_large' });
  if (err.code !== Code.InvalidArgument) return undefined;
  // protobuf-es refuses a JSON string holding an unpaired surrogate (an escape such as "\ud800")
  // before the operation's own text check could: the same invalid_characters, naming the field as
  // far as its message does (the field, and the key of a map entry).
  const text = /cannot decode field [\w.]*?\.(\w+) from JSON: (?:map entry "([^"\\]*)": )?.*invalid UTF8/.exec(err.rawMessage);
  if (text) {
    const field = text[2] === undefined ? text[1]! : `${text[1]}.${text[2]}`;
    return validationFailed([
      { field, code: 'invalid_characters', message: 'must not contain control characters (other than tab and line breaks) or unpaired surrogates' },
    ]);
  }
  const code = err.rawMessage.includes('maximum recursion depth') ? 'too_deep' : contentType.includes('json') ? 'malformed_json' : 'malformed_body';
  return new DomainError('validation', err.rawMessage, { code, issues: [{ field: '', code, message: err.rawMessage }] });
}
