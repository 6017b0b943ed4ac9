// createServer(deps): Fastify on PORT (HTTP/1.1: REST v1, legacy, MCP at /mcp, Connect + gRPC-Web) and a
// cleartext HTTP/2 listener for gRPC on GRPC_PORT sharing the same Connect routes.
// Build and listen are separate so tests can start it on port 0.
import http2 from 'node:http2';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { fastifyConnectPlugin } from '@connectrpc/connect-fastify';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type pino from 'pino';
import type { AppDeps } from '../../app/deps.js';
import { LazyChildLogger } from '../../app/lazy-logger.js';
import { DomainError } from '../../domain/errors.js';
import { connectServing } from '../connect/serving.js';
import { webPlugin } from '../web/plugin.js';
import { isWebPagePath, refusalPage, sendHtml } from '../web/html-pages.js';
import type { OidcConfig } from '../../config.js';
import { legacyPlugin } from '../legacy/plugin.js';
import { mcpPlugin } from '../mcp/plugin.js';
import { repositoryWebhooksPlugin } from '../legacy/repository-webhooks.js';
import { restV1Plugin } from '../rest-v1/plugin.js';
import { sendProblem } from '../rest-v1/problem.js';
import { sendLegacyError } from '../legacy/errors.js';
import { pathOnly, tokenInQuery, fastifyErrorToDomain } from './json-body.js';
import { requestIdFrom } from './request-id.js';
import { instrumentRoutes, registerMetricsRoute, unmatchedRequests } from './metrics.js';

export const BODY_LIMIT = 256 * 1024;
/** A path parameter longer than this is refused before any route runs (find-my-way's default, named). */
const MAX_PATH_PARAM_LENGTH = 100;

/** HSTS lifetime: a year, so a browser that came once keeps to https between occasional visits. */
export const HSTS_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;
// No includeSubDomains: the other hosts of the company domain are not ours to pin to https.
const HSTS = `max-age=${HSTS_MAX_AGE_SECONDS}`;

export interface ServerOptions {
  deps: AppDeps;
  logger: pino.Logger;
  errorsBaseUrl: string;
  publicBaseUrl: string;
  serviceVersion: string;
  /** OIDC_* for the web sign-in routes (null = none). */
  oidc?: OidcConfig | null;
  /** GET /metrics on this listener (default); false when METRICS_PORT serves it instead. */
  metricsRoute?: boolean;
  /** TRUST_PROXY_HOPS: proxies in front that append to X-Forwarded-For (req.ip is the address this many hops back); 0 = none. */
  trustProxyHops?: number;
  /** Test-only: called with the new instance before any hook or route is added (the test harness's OpenAPI conformance recorder). */
  instrument?: (app: FastifyInstance) => void;
}

export async function createServer(opts: ServerOptions): Promise<FastifyInstance> {
  const unmatched = unmatchedRequests(opts.deps.metrics);
  // Only when PUBLIC_BASE_URL is https: TLS ends at the proxy in front, this listener is plain http
  // either way, and a deployment reached by http has no https to pin browsers to.
  const hsts = new URL(opts.publicBaseUrl).protocol === 'https:';
  const app = Fastify({
    loggerInstance: opts.logger as unknown as FastifyBaseLogger,
    // Each request's logger is made when it first writes a line (most never do).
    childLoggerFactory: (logger, bindings, options) => new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
    return503OnClosing: true,
    // A hop count, never `true`: X-Forwarded-For entries a client wrote itself are not believed.
    // (proxy-addr asks about the socket's peer as hop 0, then X-Forwarded-For from the right.)
    trustProxy: opts.trustProxyHops ? (_address: string, hop: number) => hop < (opts.trustProxyHops ?? 0) : false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    // A path that does not decode (`/api/v1/catalog/items/%ED%A0%80`: invalid UTF-8) is refused before
    // any route runs; answered in the surface's envelope like every other 400.
    frameworkErrors: (err, req, reply) => {
      unmatched(req.method, reply.elapsedTime, 400);
      reply.header('x-request-id', req.id);
      // Answered before any hook runs: the onRequest hook below never sees these.
      if (hsts) reply.header('strict-transport-security', HSTS);
      const message =
        (err as { code?: string }).code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `a segment of the request path is longer than ${MAX_PATH_PARAM_LENGTH} characters`
          : 'the request path is not valid percent-encoded UTF-8';
      const de = new DomainError('validation', message, {
        code: 'invalid_path',
        issues: [{ field: '(path)', code: 'invalid_path', message }],
        cause: err,
      });
      if (isWebPagePath(req.url)) return sendHtml(reply, 400, refusalPage('Bad request', `The address is not valid: ${message}.`));
      if (req.url.startsWith('/api/internal-os/')) return sendLegacyError(reply, de);
      return sendProblem(reply, req, de, opts.errorsBaseUrl);
    },
  });
  opts.instrument?.(app);
  // Tracing on: a span per request named by its route pattern (@fastify/otel), parent from `traceparent`.
  // Registered first: it wraps every route registered after it.
  if (opts.deps.tracer) await app.register(opts.deps.tracer.fastifyPlugin());
  // Request histograms per route pattern for every route registered below (docs/metrics.md).
  instrumentRoutes(app, opts.deps.metrics);
  if (opts.metricsRoute !== false) registerMetricsRoute(app, opts.deps.metrics);
  // Never log query strings (a careless client may put a token there) or headers.
  // Headers set here are on every answer of this listener: routes, 404s, errors and Connect calls
  // (the Connect plugin copies the reply's headers onto its raw response).
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (hsts) reply.header('strict-transport-security', HSTS);
    if (tokenInQuery(req.url)) {
      throw new DomainError('validation', 'tokens are accepted only in the Authorization header, never in the query string', {
        code: 'token_in_query',
        issues: [{ field: '(query)', code: 'token_in_query', message: 'remove the token from the query string and send Authorization: Bearer <token>' }],
      });
    }
  });

  // Root handler for anything outside a surface plugin (unknown routes, early hook errors).
  app.setErrorHandler((err, req, reply) => {
    const de = fastifyErrorToDomain(err) ?? new DomainError('internal', 'internal error', { cause: err });
    if (de.kind === 'internal') req.log.error({ err }, 'unexpected error');
    return sendProblem(reply, req, de, opts.errorsBaseUrl);
  });
  app.setNotFoundHandler((req, reply) => {
    unmatched(req.method, reply.elapsedTime, 404);
    return sendProblem(reply, req, new DomainError('not_found', `no route ${req.method} ${pathOnly(req.url)}`, { code: 'not_found' }), opts.errorsBaseUrl);
  });

  await app.register(restV1Plugin, {
    deps: opts.deps,
    errorsBaseUrl: opts.errorsBaseUrl,
    publicBaseUrl: opts.publicBaseUrl,
    serviceVersion: opts.serviceVersion,
  });
  await app.register(legacyPlugin, { deps: opts.deps });
  await app.register(mcpPlugin, { deps: opts.deps, serviceVersion: opts.serviceVersion, errorsBaseUrl: opts.errorsBaseUrl });
  await app.register(repositoryWebhooksPlugin, { deps: opts.deps });
  // The web app: sign-in routes, the single-page app and the error pages (transports/web/).
  await app.register(webPlugin, { deps: opts.deps, publicBaseUrl: opts.publicBaseUrl, errorsBaseUrl: opts.errorsBaseUrl, oidc: opts.oidc ?? null });
  // Connect replaces content-type parsers in its own scope (no-op parsers: Connect reads the body
  // itself, bounded per method, after its request gate): registered without fastify-plugin.
  await app.register(fastifyConnectPlugin, connectServing(opts.deps, { grpcWeb: true, connect: true, grpc: false }, { http1: true }));
  return app;
}

/**
 * gRPC (and Connect / gRPC-Web) over cleartext HTTP/2 on GRPC_PORT. No Strict-Transport-Security
 * here: its callers are services, and browsers ignore HSTS received over cleartext (RFC 6797 8.1).
 */
export function createGrpcServer(deps: AppDeps): http2.Http2Server {
  const handle = connectNodeAdapter(connectServing(deps, { grpc: true, grpcWeb: true, connect: true }, { http1: false }));
  const tracer = deps.tracer;
  return http2.createServer((req, res) => {
    // A call refused before its body was read (request gate, body bound) answers while the sender
    // may still be sending: once the answer is out, RST_STREAM(NO_ERROR) tells it to stop (RFC 9113
    // 8.1) instead of leaving the stream half open with its flow-control window full.
    // The compat layer sends the trailers (or the final empty frame) in its own 'wantTrailers'
    // listener, registered before this one; a reset submitted earlier would overtake them.
    req.stream.once('wantTrailers', () =>
      setImmediate(() => {
        if (!req.readableEnded && !req.stream.closed) req.stream.close(http2.constants.NGHTTP2_NO_ERROR);
      }),
    );
    // The caller's `traceparent` is the parent of everything this call does (the request gate's
    // work included; the RPC span is made by the tracing interceptor).
    if (tracer === null) handle(req, res);
    else tracer.withRemoteParent(req.headers, () => handle(req, res));
  });
}
