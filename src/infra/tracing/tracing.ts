// OpenTelemetry traces, off unless configured (config.ts tracingConfig). What the rest of the code
// imports: it loads no OpenTelemetry code; startTracing() imports the SDK (otel.ts) only when tracing
// is on, and src/deps.ts hands the tracer (or null) to every instrumentation point, so with tracing
// off a request pays a null check per point. Why spans are made by hand: README "Tracing".
import type pino from 'pino';
import type { TracingConfig } from '../../config.js';
import type { Logger } from '../../domain/context.js';
import type { SpanAttributes, Tracer } from './types.js';

export type { FailureInfo, HeaderSource, SpanAttributes, SpanHandle, SpanKindName, Tracer } from './types.js';

/**
 * Starts the SDK when `config` is set: the tracer (its caller stops it: `shutdown()`), or null when
 * tracing is off. A failure to start leaves tracing off with a warning. One tracer per process (the
 * OpenTelemetry API is process-global): a start while another service of the process traces gives
 * null and changes nothing.
 */
export async function startTracing(config: TracingConfig | null, serviceVersion: string, log: Logger): Promise<Tracer | null> {
  if (config === null) return null;
  try {
    const { startOtel } = await import('./otel.js');
    const tracer = startOtel(config, serviceVersion, log);
    if (tracer === null) return null;
    // The endpoint may carry credentials in its userinfo: only its origin is logged.
    log.info(
      {
        exporter: config.exporter,
        endpoint: config.exporter === 'otlp' ? new URL(config.endpoint).origin : undefined,
        sampler: config.sampler,
        samplerArg: config.samplerArg,
      },
      'tracing on',
    );
    return tracer;
  } catch (err) {
    log.warn({ err: { message: (err as Error).message } }, 'tracing could not start; going on without it');
    return null;
  }
}

const NO_FIELDS: Readonly<Record<string, never>> = Object.freeze({});

/** Where a logger made by loggerWithTracer keeps its tracer (its children inherit it). */
const TRACER = Symbol('fluxdesk.tracer');

/**
 * A child of `logger` (same output, no bindings) whose lines, and its children's, name the active
 * trace of `tracer` (traceLogFields). The logger is made before tracing starts, so the tracer is
 * given to this child instead of to it.
 */
export function loggerWithTracer(logger: pino.Logger, tracer: Tracer): pino.Logger {
  const child = logger.child({});
  Object.defineProperty(child, TRACER, { value: tracer });
  return child;
}

/** pino `mixin`: the active trace in every log line of a loggerWithTracer logger; one lookup per line otherwise. */
export function traceLogFields(_mergeObject: object, _level: number, logger: object): object {
  const t = (logger as { [TRACER]?: Tracer })[TRACER];
  return t === undefined ? NO_FIELDS : (t.logFields() ?? NO_FIELDS);
}

/**
 * pino `mixinMergeStrategy` to go with traceLogFields: pino's default merges the line's fields into
 * the mixin's object, which must then be a new one per line; here nothing is made for a line
 * outside a span, and the line's own fields win.
 */
export function traceLogMerge(mergeObject: object, mixinObject: object): object {
  return mixinObject === NO_FIELDS ? mergeObject : { ...mixinObject, ...mergeObject };
}

/** What an egress client answers (http-egress EgressResponse): a value, never an exception. */
interface EgressOutcome {
  status: number;
  ok: boolean;
  error?: string;
}

/**
 * A client span around one outgoing POST (action callbacks, nudges). With `propagate`, the request
 * carries the span's `traceparent` (a copy of `headers`: the caller's object is not changed).
 */
export function tracedPost<R extends EgressOutcome>(
  tracer: Tracer,
  url: string,
  headers: Record<string, string>,
  propagate: boolean,
  send: (headers: Record<string, string>) => Promise<R>,
): Promise<R> {
  let attributes: SpanAttributes = { 'http.request.method': 'POST' };
  try {
    // Origin and path only: a query string or userinfo may carry a credential.
    const u = new URL(url);
    attributes = {
      'http.request.method': 'POST',
      'server.address': u.hostname,
      'server.port': Number(u.port) || (u.protocol === 'https:' ? 443 : 80),
      'url.full': `${u.origin}${u.pathname}`,
    };
  } catch {
    // An unparsable URL is refused by the client itself (blocked_target).
  }
  return tracer.inSpan('POST', 'client', attributes, async (span) => {
    let sent = headers;
    if (propagate) {
      sent = { ...headers };
      tracer.inject(sent);
    }
    const r = await send(sent);
    if (r.status > 0) span.setAttribute('http.response.status_code', r.status);
    if (!r.ok) span.fail({ type: r.error ?? String(r.status), fault: true });
    return r;
  });
}
