// HTTP side of the metrics (docs/metrics.md): per-route request histograms on the main listener,
// and GET /metrics in Prometheus text format, on the main listener or on METRICS_PORT.
//
// /metrics takes no credentials (a scraper holds none); where the main listener is public, set
// METRICS_PORT so it is served only on a listener of its own that the public network cannot reach.
import http from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type { Metrics, RouteMeter } from '../../infra/metrics/metrics.js';

export const METRICS_PATH = '/metrics';
/** Route label of requests no route matched (404s): one series for every unknown path. */
export const UNMATCHED_ROUTE = '(unmatched)';

type OnResponse = (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * An onResponse hook made once per route (not per request) with the route's pattern in it; it reads
 * Fastify's own response time (reply.elapsedTime), so measuring costs no extra clock read.
 */
function meterHook(metrics: Metrics, methods: string | string[], route: string): OnResponse {
  if (typeof methods === 'string') {
    const meter = metrics.route(methods, route);
    return (_req, reply, done) => {
      meter.observe(reply.elapsedTime, reply.statusCode);
      done();
    };
  }
  const byMethod = new Map<string, RouteMeter>(methods.map((m) => [m, metrics.route(m, route)]));
  return (req, reply, done) => {
    // A route for several methods: only its own methods reach it.
    byMethod.get(req.method)?.observe(reply.elapsedTime, reply.statusCode);
    done();
  };
}

/**
 * Measures every route registered after this call (call it on the root instance before registering
 * the surfaces). Requests no route matched are counted by unmatchedRequests().
 */
export function instrumentRoutes(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.url === METRICS_PATH) return;
    const hook = meterHook(metrics, route.method, route.url);
    const existing = route.onResponse;
    route.onResponse = existing === undefined ? [hook] : Array.isArray(existing) ? [...existing, hook] : [existing, hook];
  });
}

/**
 * Counts a request no route matched (the not-found handler, a path that does not decode), called by
 * the handler that answers it: no hook runs for the requests that do match a route.
 */
export function unmatchedRequests(metrics: Metrics): (method: string, ms: number, statusCode: number) => void {
  const meters = new Map<string, RouteMeter>();
  return (method, ms, statusCode) => {
    // Any method string a client sends would be a label value: the standard ones, else OTHER.
    const m = STANDARD_METHODS.has(method) ? method : 'OTHER';
    let meter = meters.get(m);
    if (!meter) meters.set(m, (meter = metrics.route(m, UNMATCHED_ROUTE)));
    meter.observe(ms, statusCode);
  };
}

const STANDARD_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** GET /metrics on a Fastify instance (the main listener when METRICS_PORT is not set). */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get(METRICS_PATH, async (_req, reply) => {
    const body = await metrics.scrape();
    return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(body);
  });
}

/** A listener of its own for METRICS_PORT: GET /metrics, everything else 404. */
export function createMetricsServer(metrics: Metrics, onError: (err: unknown) => void): http.Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    metrics.scrape().then(
      (body) => res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : body),
      (err: unknown) => {
        onError(err);
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics collection failed\n');
      },
    );
  });
}
