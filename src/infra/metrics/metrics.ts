// Metrics (docs/metrics.md): the small interface the runner, the transports and infra record
// through, and its prom-client implementation. Each service instance owns its Registry (never
// prom-client's global one): tests start several services in one process.
//
// Request-path recording goes through a "meter" the caller obtains once per operation / route /
// procedure / tool and keeps: recording is then a few additions (families.ts).
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { MikroORM } from '@mikro-orm/core';
import type { Clock, Logger, Surface } from '../../domain/context.js';
import type { ErrorKind } from '../../domain/errors.js';
import { BUDGET_NAMES, RATE_BUDGETS, type BudgetMetricsLabel } from '../../domain/rate-budgets.rules.js';
import { CounterFamily, HistogramFamily, type CounterChild, type HistogramChild } from './families.js';
import { EVENT_OPERATIONS, EventIntake } from './event-intake.js';
import { registerDbGauges } from './db-probes.js';

/** One operation on one surface (app/run-operation.ts). */
export interface OperationMeter {
  /** A call that returned; `replayed`: an Idempotency-Key replay (its event was counted when it arrived). */
  succeeded(ms: number, output: unknown, replayed: boolean): void;
  failed(ms: number, kind: ErrorKind, code: string): void;
}

/** One HTTP route (its pattern) and method. */
export interface RouteMeter {
  observe(ms: number, statusCode: number): void;
}

/** One Connect / gRPC procedure; `code` is `ok` or the Connect code name (`invalid_argument`...). */
export interface RpcMeter {
  observe(ms: number, code: string): void;
}

export type ToolOutcome = 'ok' | 'tool_error' | 'protocol_error';
export interface ToolMeter {
  observe(ms: number, outcome: ToolOutcome): void;
}

export type IdempotencyResult = 'started' | 'replay' | 'mismatch' | 'in_flight';
export type StoreName = 'rate_limit' | 'idempotency';
export type NudgeResult = 'completed' | 'failed' | 'dead';

export interface Metrics {
  operation(name: string, surface: Surface): OperationMeter;
  /** `route`: the pattern (`/api/v1/deliveries/:id`), never the raw URL; `(unmatched)` for 404s without a route. */
  route(method: string, route: string): RouteMeter;
  rpc(procedure: string): RpcMeter;
  /** `tool`: a name from the live tool list, or `other` (the caller guarantees it: the label set stays bounded). */
  tool(tool: string): ToolMeter;
  rateLimitDenied(budget: BudgetMetricsLabel, window: 'minute' | 'day'): void;
  idempotency(result: IdempotencyResult): void;
  /** The shared store could not be reached: the call went on (fail_open) or was refused with 503 (fail_closed). */
  storeUnavailable(store: StoreName, decision: 'fail_open' | 'fail_closed'): void;
  redisError(): void;
  nudgeSent(channel: 'push' | 'chat', result: NudgeResult): void;
  /** Prometheus text format 0.0.4. */
  readonly contentType: string;
  scrape(): Promise<string>;
}

/** Latency buckets (seconds): 1 ms to 10 s. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface MetricsOptions {
  /** Scrape-time gauges (outbox, job queues, pool) query it; absent: none of those gauges. */
  orm?: MikroORM;
  clock: Clock;
  log: Logger;
  serviceVersion: string;
}

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

export class PromMetrics implements Metrics {
  readonly registry = new Registry();
  readonly contentType = this.registry.contentType;
  private readonly operations = new Map<string, Partial<Record<Surface, OperationMeter>>>();
  private readonly routes = new Map<string, RouteMeter>();
  private readonly rpcs = new Map<string, RpcMeter>();
  private readonly tools = new Map<string, ToolMeter>();

  private readonly opDuration = this.histogram(
    'fluxdesk_operation_duration_seconds',
    'Time in the operation runner per operation and surface (authentication to answer).',
    ['op', 'surface'],
  );
  private readonly opTotal = this.counter(
    'fluxdesk_operations_total',
    'Operations run, by outcome: ok or the error kind (validation, rate_limited, internal...).',
    ['op', 'surface', 'outcome'],
  );
  private readonly httpDuration = this.histogram(
    'fluxdesk_http_request_duration_seconds',
    'HTTP requests on the main listener by method, route pattern and status class.',
    ['method', 'route', 'status_class'],
  );
  private readonly rpcDuration = this.histogram(
    'fluxdesk_rpc_duration_seconds',
    'Connect / gRPC / gRPC-Web calls that reached their implementation, by procedure and code.',
    ['procedure', 'code'],
  );
  private readonly toolDuration = this.histogram(
    'fluxdesk_mcp_tool_duration_seconds',
    'MCP tools/call by tool and outcome (ok, tool_error: isError result, protocol_error: JSON-RPC error).',
    ['tool', 'outcome'],
  );
  private readonly events = this.counter(
    'fluxdesk_events_total',
    'Inbound events by result: accepted (new), deduped (repeat), degraded (new, over a daily limit: inbox only).',
    ['surface', 'result'],
  );
  private readonly eventsRejected = this.counter('fluxdesk_events_rejected_total', 'Inbound events refused, by error code (bulk: per recipient row).', [
    'surface',
    'code',
  ]);
  private readonly rateDenied = this.counter(
    'fluxdesk_rate_limit_denials_total',
    'Calls refused with 429 by a rate-limit window (per token, or per client address on the sign-in routes).',
    ['budget', 'window'],
  );
  private readonly idem = this.counter(
    'fluxdesk_idempotency_requests_total',
    'Requests with an Idempotency-Key by result: started (first of its key), replay (stored answer), mismatch and in_flight (409 conflicts).',
    ['result'],
  );
  private readonly storeDown = this.counter('fluxdesk_store_unavailable_total', 'Rate-limit / idempotency store (Redis) unreachable: the decision taken.', [
    'store',
    'decision',
  ]);
  private readonly redisErrors = this.counter('fluxdesk_redis_errors_total', 'Errors reported by the Redis client (connection lost, refused, timeouts).', []);
  private readonly nudgeSends = this.counter(
    'fluxdesk_nudge_sends_total',
    'Nudge send attempts by channel and result: completed (sent, or nothing left to send), failed (retried later), dead (given up).',
    ['channel', 'result'],
  );
  private readonly nudgesDead = this.counter(
    'fluxdesk_nudges_dead_total',
    'Nudges given up (last attempt failed, or refused for good): listed by ListFailedNudges.',
    ['channel'],
  );
  private readonly redisErrorsChild: CounterChild = this.redisErrors.child();

  constructor(o: MetricsOptions) {
    // Process CPU, memory, handles, GC and event-loop lag (nodejs_eventloop_lag_*), per registry.
    collectDefaultMetrics({ register: this.registry });
    new Gauge({ name: 'fluxdesk_build_info', help: 'Always 1; the running version in its label.', labelNames: ['version'], registers: [this.registry] })
      .labels(o.serviceVersion)
      .set(1);
    // Pre-created so dashboards and alerts find a zero series before the first event.
    for (const s of ['completed', 'failed', 'dead'] as const) for (const c of ['push', 'chat'] as const) this.nudgeSends.child(c, s);
    for (const c of ['push', 'chat']) this.nudgesDead.child(c);
    for (const s of ['rate_limit', 'idempotency']) for (const d of ['fail_open', 'fail_closed']) this.storeDown.child(s, d);
    for (const r of ['started', 'replay', 'mismatch', 'in_flight']) this.idem.child(r);
    for (const name of BUDGET_NAMES) for (const w of RATE_BUDGETS[name].windows) this.rateDenied.child(RATE_BUDGETS[name].metricsLabel, w.per);
    if (o.orm) registerDbGauges(this.registry, { orm: o.orm, clock: o.clock, log: o.log });
  }

  private counter(name: string, help: string, labels: string[]): CounterFamily {
    const f = new CounterFamily(name, help, labels);
    this.registry.registerMetric(f.asMetric());
    return f;
  }

  private histogram(name: string, help: string, labels: string[]): HistogramFamily {
    const f = new HistogramFamily(name, help, labels, LATENCY_BUCKETS);
    this.registry.registerMetric(f.asMetric());
    return f;
  }

  operation(name: string, surface: Surface): OperationMeter {
    // Two lookups, no key string built per call.
    let bySurface = this.operations.get(name);
    if (!bySurface) this.operations.set(name, (bySurface = {}));
    let m = bySurface[surface];
    if (!m) {
      const intake =
        name === EVENT_OPERATIONS.single || name === EVENT_OPERATIONS.bulk
          ? new EventIntake(name === EVENT_OPERATIONS.bulk, surface, this.events, this.eventsRejected)
          : null;
      m = bySurface[surface] = new OpMeter(this.opDuration.child(name, surface), this.opTotal, name, surface, intake);
    }
    return m;
  }

  route(method: string, route: string): RouteMeter {
    const key = `${method} ${route}`;
    let m = this.routes.get(key);
    if (!m) this.routes.set(key, (m = new ByStatusClass(this.httpDuration, method, route)));
    return m;
  }

  rpc(procedure: string): RpcMeter {
    let m = this.rpcs.get(procedure);
    if (!m) this.rpcs.set(procedure, (m = new ByCode(this.rpcDuration, procedure)));
    return m;
  }

  tool(tool: string): ToolMeter {
    let m = this.tools.get(tool);
    if (!m) this.tools.set(tool, (m = new ByCode(this.toolDuration, tool)));
    return m;
  }

  rateLimitDenied(budget: BudgetMetricsLabel, window: 'minute' | 'day'): void {
    this.rateDenied.child(budget, window).inc();
  }

  idempotency(result: IdempotencyResult): void {
    this.idem.child(result).inc();
  }

  storeUnavailable(store: StoreName, decision: 'fail_open' | 'fail_closed'): void {
    this.storeDown.child(store, decision).inc();
  }

  redisError(): void {
    this.redisErrorsChild.inc();
  }

  nudgeSent(channel: 'push' | 'chat', result: NudgeResult): void {
    this.nudgeSends.child(channel, result).inc();
    if (result === 'dead') this.nudgesDead.child(channel).inc();
  }

  scrape(): Promise<string> {
    return this.registry.metrics();
  }
}

class OpMeter implements OperationMeter {
  private readonly ok: CounterChild;
  private readonly byKind: Partial<Record<ErrorKind, CounterChild>> = {};
  constructor(
    private readonly duration: HistogramChild,
    private readonly total: CounterFamily,
    private readonly op: string,
    private readonly surface: Surface,
    private readonly intake: EventIntake | null,
  ) {
    this.ok = total.child(op, surface, 'ok');
  }
  succeeded(ms: number, output: unknown, replayed: boolean): void {
    this.duration.observe(ms / 1000);
    this.ok.inc();
    if (this.intake && !replayed) this.intake.succeeded(output);
  }
  failed(ms: number, kind: ErrorKind, code: string): void {
    this.duration.observe(ms / 1000);
    (this.byKind[kind] ??= this.total.child(this.op, this.surface, kind)).inc();
    this.intake?.reject(code);
  }
}

class ByStatusClass implements RouteMeter {
  private readonly byClass: Array<HistogramChild | undefined> = [];
  constructor(
    private readonly family: HistogramFamily,
    private readonly method: string,
    private readonly route: string,
  ) {}
  observe(ms: number, statusCode: number): void {
    const i = Math.min(4, Math.max(0, ((statusCode / 100) | 0) - 1));
    (this.byClass[i] ??= this.family.child(this.method, this.route, STATUS_CLASSES[i]!)).observe(ms / 1000);
  }
}

/** A histogram child per second label value (a code or an outcome: a small closed set). */
class ByCode implements RpcMeter, ToolMeter {
  private readonly byCode = new Map<string, HistogramChild>();
  constructor(
    private readonly family: HistogramFamily,
    private readonly name: string,
  ) {}
  observe(ms: number, code: string): void {
    let c = this.byCode.get(code);
    if (!c) this.byCode.set(code, (c = this.family.child(this.name, code)));
    c.observe(ms / 1000);
  }
}

export function createMetrics(o: MetricsOptions): PromMetrics {
  return new PromMetrics(o);
}
