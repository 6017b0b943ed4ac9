// The tracer the instrumentation points use (tracing.ts), implemented by otel.ts when tracing is on.
import type { FastifyPluginCallback } from 'fastify';

export type SpanKindName = 'internal' | 'server' | 'client';
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** How a failure shows on its span: `error.type`, and whether it is a fault (span status ERROR). */
export interface FailureInfo {
  type: string;
  fault: boolean;
  /** fluxdesk.error.kind (DomainError kind). */
  kind?: string;
}

export interface SpanHandle {
  setAttribute(key: string, value: string | number | boolean): void;
  /** Records an outcome that is not an exception (e.g. an egress result value). */
  fail(info: FailureInfo, message?: string): void;
}

/** A header carrier: Connect's Headers, Node's IncomingHttpHeaders, or a plain record. */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface Tracer {
  /**
   * Runs `fn` in a new span, the active one meanwhile (spans started inside are its children), and
   * ends it when `fn` settles. A thrown error marks it, classified by `classify` (default: a fault).
   */
  inSpan<T>(
    name: string,
    kind: SpanKindName,
    attributes: SpanAttributes,
    fn: (span: SpanHandle) => Promise<T>,
    classify?: (err: unknown) => FailureInfo,
  ): Promise<T>;
  /**
   * Like inSpan, but only inside a trace: with no active span, `fn` runs untraced. For statements
   * and commands, so background polling makes no root trace of its own.
   */
  inChildSpan<T>(name: string, kind: SpanKindName, attributes: SpanAttributes, fn: (span: SpanHandle | null) => Promise<T>): Promise<T>;
  /**
   * A server span whose parent is the active span or, when there is none, the W3C `traceparent`
   * (and `tracestate`) of `headers`.
   */
  inServerSpan<T>(
    name: string,
    headers: HeaderSource,
    attributes: SpanAttributes,
    fn: (span: SpanHandle) => Promise<T>,
    classify?: (err: unknown) => FailureInfo,
  ): Promise<T>;
  /** Runs `fn` with the caller's `traceparent` as the active (remote) parent, when no span is active. */
  withRemoteParent<T>(headers: HeaderSource, fn: () => T): T;
  /** Adds `traceparent` (and `tracestate`) of the active span to `headers`. */
  inject(headers: Record<string, string>): void;
  /** trace_id / span_id of the active span, for log lines; undefined outside a sampled span. */
  logFields(): { trace_id: string; span_id: string } | undefined;
  /** @fastify/otel: one span per request named `METHOD /route/pattern`, parent from `traceparent`. */
  fastifyPlugin(): FastifyPluginCallback;
  /** Exports what is pending, then unregisters (a later start in the same process begins afresh). */
  shutdown(): Promise<void>;
}
