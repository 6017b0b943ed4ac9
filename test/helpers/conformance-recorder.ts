// Sees every response of a service started by the test harness and checks it against the OpenAPI
// document that same service serves (conformance.ts); collects violations per test file.
// conformance-setup.ts (vitest setupFiles) fails the file on any, unless CONFORMANCE=report|off.
//   CONFORMANCE=strict (default): violations fail the test file, listed in its afterAll error.
//   CONFORMANCE=report: violations are only collected; conformance-global.ts prints the grouped
//     list of the whole run at the end (use it while the document is being fixed).
//   CONFORMANCE=off: no hooks at all.
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ConformanceChecker, type ObservedResponse, type RouteDecl, type Violation } from './conformance.js';

export type ConformanceMode = 'strict' | 'report' | 'off';

export function conformanceMode(): ConformanceMode {
  const v = (process.env.CONFORMANCE ?? 'strict').trim().toLowerCase() || 'strict';
  if (v === 'strict' || v === 'report' || v === 'off') return v;
  throw new Error(`CONFORMANCE must be strict, report or off (got ${JSON.stringify(process.env.CONFORMANCE)})`);
}

export const OPENAPI_PATH = '/api/v1/openapi.json';

/** Connect / gRPC-Web procedures (`/package.Service/Method`) are described by the protos, not the OpenAPI document. */
const CONNECT_ROUTE = /^\/[A-Za-z_]\w*(\.[A-Za-z_]\w*)+\/[A-Za-z_]\w*$/;
export function isConnectRoute(r: RouteDecl): boolean {
  return CONNECT_ROUTE.test(r.url);
}

// Violations of the current test file: the harness and the setup file share this through globalThis
// (one module graph per file, but stay safe if a helper is loaded twice).
const KEY = Symbol.for('fluxdesk.conformance.violations');
function store(): Violation[] {
  const g = globalThis as unknown as Record<symbol, Violation[]>;
  return (g[KEY] ??= []);
}
export function recordViolations(vs: Violation[]): void {
  if (vs.length) store().push(...vs);
}
/** Returns and clears the violations collected so far in this file. */
export function takeViolations(): Violation[] {
  const s = store();
  return s.splice(0, s.length);
}

interface Sent {
  status: number;
  headers: Record<string, string | number | string[] | undefined>;
  payload: unknown;
}

/** One per started service: install() before routes are registered, attach() once it listens. */
export class ServerRecorder {
  readonly routes: RouteDecl[] = [];
  private checker: ConformanceChecker | undefined;
  private pending: ObservedResponse[] | null = [];
  private readonly sent = new WeakMap<FastifyRequest, Sent>();

  /** For startService({ instrumentHttp }): hooks on the root instance, before any route. */
  readonly install = (app: FastifyInstance): void => {
    app.addHook('onRoute', (route: RouteOptions) => {
      // `schema: { hide: true }` (the @fastify/static / @fastify/swagger convention) marks a route
      // that is not part of the HTTP API (the web app's pages and assets, sign-in routes): not in
      // the document by design, so neither required there nor counted as serving an operation.
      if ((route.schema as { hide?: unknown } | undefined)?.hide === true) return;
      for (const m of Array.isArray(route.method) ? route.method : [route.method]) this.routes.push({ method: m, url: route.url });
    });
    // Headers and body as handed to the transport (headers Fastify adds later, like content-length, are not documented ones).
    app.addHook('onSend', (req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, p: unknown) => void) => {
      this.sent.set(req, { status: reply.statusCode, headers: reply.getHeaders(), payload });
      done(null, payload);
    });
    app.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const s = this.sent.get(req);
      if (s) {
        const payload = s.payload;
        const streamed =
          payload !== null && typeof payload === 'object' && !Buffer.isBuffer(payload) && typeof (payload as { pipe?: unknown }).pipe === 'function';
        this.observe({
          method: req.method,
          route: req.routeOptions?.url,
          url: req.url.split('?')[0]!,
          status: reply.statusCode,
          headers: lowerCase(s.headers),
          body: streamed ? undefined : typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : payload == null ? undefined : String(payload),
          streamed,
        });
      }
      done();
    });
  };

  private observe(r: ObservedResponse): void {
    if (this.pending) this.pending.push(r);
    else recordViolations(this.checker!.checkResponse(r));
  }

  /** Loads the document the service serves, checks the route table, then checks every response seen so far and from now on. */
  async attach(app: FastifyInstance): Promise<void> {
    // Marked not sampled (W3C traceparent flags 00): with tracing on, the harness's own request must
    // export no span (tracing tests count what reaches their receiver).
    const res = await app.inject({ method: 'GET', url: OPENAPI_PATH, headers: { traceparent: '00-00000000000000000000000000c0ffee-00000000000c0ffe-00' } });
    const pending = this.pending ?? [];
    this.pending = null;
    if (res.statusCode !== 200) {
      recordViolations([
        { kind: 'document', method: 'GET', path: OPENAPI_PATH, status: res.statusCode, message: 'the service does not serve its OpenAPI document' },
      ]);
      this.checker = undefined;
      this.observe = () => {};
      return;
    }
    this.checker = new ConformanceChecker(res.body, { cacheDir: validatorCacheDir() });
    recordViolations(this.checker.checkRoutes(this.routes, isConnectRoute));
    for (const r of pending) recordViolations(this.checker.checkResponse(r));
  }
}

/**
 * The run's directory for compiled validators (conformance-global.ts), set by conformance-setup.ts.
 * Read from the environment, not from vitest: the harness also runs in child processes of tests.
 */
function validatorCacheDir(): string | undefined {
  const dir = process.env.FLUXDESK_CONFORMANCE_DIR;
  return dir ? path.join(dir, 'validators') : undefined;
}

function lowerCase(h: Record<string, unknown>): Record<string, string | number | string[] | undefined> {
  const out: Record<string, string | number | string[] | undefined> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = v as string | number | string[] | undefined;
  return out;
}
