// The OpenTelemetry SDK behind tracing.ts, imported only when tracing is on (startTracing).
// Every setting comes from config.ts (TracingConfig): the exporter, sampler and batch settings are
// passed in explicitly. (The SDK itself still reads a few of its own variables, e.g.
// OTEL_PROPAGATORS and OTEL_RESOURCE_ATTRIBUTES, with the specification's defaults.)
import { loggablePath } from '../loggable-path.js';
import dc from 'node:diagnostics_channel';
import {
  context,
  diag,
  DiagLogLevel,
  propagation,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import { startNodeSdk } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
// sdk-trace is sdk-node's own dependency: the span processor and samplers it documents.
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import fastifyOtel from '@fastify/otel';
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import type { TracingConfig } from '../../config.js';
import type { Logger } from '../../domain/context.js';
import type { FailureInfo, HeaderSource, SpanAttributes, SpanHandle, SpanKindName, Tracer } from './types.js';

const KINDS: Record<SpanKindName, SpanKind> = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT };

/** Probes and metrics scrapes: frequent and uninteresting, never traced. */
const UNTRACED_PATHS: ReadonlySet<string> = new Set(['/api/v1/health', '/api/v1/ready', '/metrics']);

const headerGetter: TextMapGetter<HeaderSource> = {
  get(carrier, key) {
    if (typeof carrier.get === 'function') return (carrier as { get(name: string): string | null }).get(key) ?? undefined;
    const v = (carrier as Record<string, string | string[] | undefined>)[key];
    return Array.isArray(v) ? v[0] : v;
  },
  keys: () => [],
};

function sampler(c: TracingConfig): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(c.samplerArg);
  switch (c.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

class Handle implements SpanHandle {
  constructor(readonly span: Span) {}
  setAttribute(key: string, value: string | number | boolean): void {
    this.span.setAttribute(key, value);
  }
  fail(info: FailureInfo, message?: string): void {
    this.span.setAttribute('error.type', info.type);
    if (info.kind !== undefined) this.span.setAttribute('fluxdesk.error.kind', info.kind);
    if (info.fault) this.span.setStatus({ code: SpanStatusCode.ERROR, message });
  }
}

const defaultClassify = (err: unknown): FailureInfo => ({ type: (err as Error)?.name ?? 'Error', fault: true });

function defined(attributes: SpanAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const k in attributes) {
    const v = attributes[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

async function settle<T>(span: Span, fn: (span: SpanHandle) => Promise<T>, classify: ((err: unknown) => FailureInfo) | undefined): Promise<T> {
  const handle = new Handle(span);
  try {
    return await fn(handle);
  } catch (err) {
    const info = (classify ?? defaultClassify)(err);
    handle.fail(info, (err as Error)?.message);
    if (info.fault && err instanceof Error) span.recordException(err);
    throw err;
  } finally {
    span.end();
  }
}

/** ioredis 6 publishes every command on this tracing channel (node:diagnostics_channel). */
interface RedisCommandMessage {
  command: string;
  database: number;
  serverAddress: string;
  serverPort: number | undefined;
  error?: unknown;
}
const REDIS_SPAN = Symbol('fluxdesk.redisSpan');
type WithSpan = RedisCommandMessage & { [REDIS_SPAN]?: Span };

/** A tracer provider is registered with the (process-global) API: another service of this process traces. */
function providerRegistered(): boolean {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider && provider.getDelegate() !== new ProxyTracerProvider().getDelegate();
}

/** The tracer, or null when another service of this process has started the SDK (the API allows one). */
export function startOtel(c: TracingConfig, serviceVersion: string, log: Logger): Tracer | null {
  if (providerRegistered()) return null;
  const exporter =
    c.exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter({ url: c.endpoint, headers: { ...c.headers }, timeoutMillis: c.timeoutMs });
  const processor = new BatchSpanProcessor({
    exporter,
    scheduledDelayMillis: c.scheduleDelayMs,
    maxQueueSize: c.maxQueueSize,
    maxExportBatchSize: c.maxExportBatchSize,
    exportTimeoutMillis: c.timeoutMs,
  });
  const sdk = startNodeSdk({
    logLevel: 'warn',
    spanProcessors: [processor],
    sampler: sampler(c),
    resourceAttributes: { [ATTR_SERVICE_NAME]: c.serviceName, [ATTR_SERVICE_VERSION]: serviceVersion },
    resourceDetectors: [],
    // Traces only: metrics are prom-client's (/metrics), logs are pino's.
    metricReaders: [],
    logRecordProcessors: [],
  });
  // The SDK's own complaints (an unreachable collector...) go to the service log, not the console.
  diag.setLogger(
    {
      error: (message, ...args) => log.warn({ otel: args.map(String).join(' ').slice(0, 500) }, `opentelemetry: ${message}`),
      warn: (message, ...args) => log.warn({ otel: args.map(String).join(' ').slice(0, 500) }, `opentelemetry: ${message}`),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const tracer = trace.getTracer('fluxdesk', serviceVersion);

  // Redis: one client span per command, child of the span active where the command was issued.
  const redisChannel = dc.tracingChannel<object, WithSpan>('ioredis:command');
  const redisHandlers = {
    start(m: WithSpan) {
      // Only inside a trace (a request, a nudge dispatch): no root trace per background command.
      if (trace.getSpan(context.active()) === undefined) return;
      const name = m.command.toUpperCase();
      m[REDIS_SPAN] = tracer.startSpan(name, {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'redis',
          'db.operation.name': name,
          'db.namespace': String(m.database),
          'server.address': m.serverAddress,
          ...(m.serverPort !== undefined ? { 'server.port': m.serverPort } : {}),
        },
      });
    },
    end() {},
    asyncStart() {},
    asyncEnd(m: WithSpan) {
      m[REDIS_SPAN]?.end();
    },
    error(m: WithSpan) {
      const span = m[REDIS_SPAN];
      if (!span) return;
      span.setAttribute('error.type', (m.error as Error)?.name ?? 'Error');
      span.setStatus({ code: SpanStatusCode.ERROR, message: (m.error as Error)?.message });
    },
  };
  redisChannel.subscribe(redisHandlers);

  const serverParent = (headers: HeaderSource): Context => {
    const active = context.active();
    return trace.getSpan(active) !== undefined ? active : propagation.extract(active, headers, headerGetter);
  };

  return {
    inSpan(name, kind, attributes, fn, classify) {
      const span = tracer.startSpan(name, { kind: KINDS[kind], attributes: defined(attributes) });
      return context.with(trace.setSpan(context.active(), span), () => settle(span, fn, classify));
    },
    inChildSpan(name, kind, attributes, fn) {
      const active = context.active();
      if (trace.getSpan(active) === undefined) return fn(null);
      const span = tracer.startSpan(name, { kind: KINDS[kind], attributes: defined(attributes) }, active);
      return context.with(trace.setSpan(active, span), () => settle(span, fn, undefined));
    },
    inServerSpan(name, headers, attributes, fn, classify) {
      const parent = serverParent(headers);
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: defined(attributes) }, parent);
      return context.with(trace.setSpan(parent, span), () => settle(span, fn, classify));
    },
    withRemoteParent(headers, fn) {
      const active = context.active();
      if (trace.getSpan(active) !== undefined) return fn();
      return context.with(propagation.extract(active, headers, headerGetter), fn);
    },
    inject(headers) {
      propagation.inject(context.active(), headers);
    },
    logFields() {
      const span = trace.getSpan(context.active());
      if (span === undefined) return undefined;
      const sc = span.spanContext();
      return trace.isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : undefined;
    },
    fastifyPlugin() {
      const instrumentation = new fastifyOtel.FastifyOtelInstrumentation({
        registerOnInitialization: false,
        // One span per request; none per hook, none per handler: @fastify/otel ends a handler span
        // when the handler's promise settles, and connect-fastify's never does (connect-node waits
        // for an 'end' event a Node ServerResponse does not emit), which would leave every RPC
        // span's parent unexported. The handler runs in the request span's context instead (below).
        instrumentHooks: false,
        instrumentHandler: false,
        ignorePaths: (route) => UNTRACED_PATHS.has(route.url.split('?')[0]!),
        // The route pattern, never the concrete path (bounded names; ids stay out of them).
        // url.path as @fastify/otel sets it is the raw URL: replaced by what logs may carry too (no
        // query string, no sign-in link secret: infra/loggable-path.ts).
        requestHook: (span, request) => {
          span.updateName(request.routeOptions.url ? `${request.method} ${request.routeOptions.url}` : request.method);
          span.setAttribute('url.path', loggablePath(request.url) ?? '/');
        },
      });
      const otelPlugin = instrumentation.plugin() as unknown as FastifyPluginCallback;
      const plugin: FastifyPluginCallback = (instance, opts, done) => {
        // The body is read in stream callbacks, outside the request span's context: each handler
        // is entered in it again, so the operation's spans are the request span's children.
        instance.addHook('onRoute', (route) => {
          const handler = route.handler as (this: unknown, request: FastifyRequest, reply: unknown) => unknown;
          route.handler = function inRequestContext(this: unknown, request: FastifyRequest, reply: unknown) {
            const ctx = request.opentelemetry?.().context;
            return ctx ? context.with(ctx, handler, this, request, reply) : handler.call(this, request, reply);
          } as typeof route.handler;
        });
        otelPlugin(instance, opts, done);
      };
      // Like @fastify/otel itself: its hooks apply to the whole server, not to an encapsulated child.
      (plugin as unknown as Record<symbol, unknown>)[Symbol.for('skip-override')] = true;
      return plugin;
    },
    async shutdown() {
      redisChannel.unsubscribe(redisHandlers);
      try {
        await sdk.shutdown();
      } finally {
        // Unregistered, so a later start in the same process (tests) registers afresh.
        trace.disable();
        context.disable();
        propagation.disable();
        diag.disable();
      }
    },
  };
}
