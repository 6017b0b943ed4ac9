import type { MikroORM } from '@mikro-orm/core';
import type { Clock, DomainConfig, Logger } from '../domain/context.js';
import type { Ports } from '../domain/ports.js';
import type { CallbackSender } from '../domain/actions/callback-sender.js';
import type { RateLimiter } from '../infra/rate-limit/rate-limiter.js';
import type { IdempotencyStore } from '../infra/idempotency/idempotency-store.js';
import type { Mailer } from '../infra/mail/mailer.js';
import type { OperationLoad } from './operation-load.js';
import type { Readiness } from './readiness.js';
import type { Metrics } from '../infra/metrics/metrics.js';
import type { Tracer } from '../infra/tracing/types.js';
import type { PartitionSettings } from '../infra/db/partitions.js';

/** What the runner needs; built in src/deps.ts. */
export interface AppDeps {
  orm: MikroORM;
  rateLimiter: RateLimiter;
  idempotency: IdempotencyStore;
  clock: Clock;
  /** OpenTelemetry's tracer while tracing is on (OTEL_*), else null: every instrumentation point's one check. */
  tracer: Tracer | null;
  config: DomainConfig;
  log: Logger;
  /** The domain's ports (event store, token directory), handed to every operation as ctx.ports. */
  ports: Ports;
  /** Where a clicked webhook action's callback is POSTed from (the SSRF-guarded egress client, src/deps.ts). */
  callbackSender: CallbackSender;
  /**
   * WatchInbox: a heartbeat after `heartbeatMs` without a message, and rows sent only on credentials
   * checked at most `recheckMs` ago. Absent: the service's own (transports/connect/inbox-routes.ts).
   */
  watchTiming?: { heartbeatMs: number; recheckMs: number };
  /** Hosts a user-supplied nudge URL may name over plain http (local test receivers); empty in production. */
  nudgeEgressAllowHosts?: readonly string[];
  /** Push service hosts a subscription's endpoint may name besides the browsers' own (PUSH_ENDPOINT_ALLOW_HOSTS). */
  pushEndpointAllowHosts?: readonly string[];
  /** SMTP sender of the mail outbox; null/absent = no SMTP_URL (mails are recorded as skipped). */
  mailer?: Mailer | null;
  /** Operations in flight (counted by runOperation; background work yields to them). */
  load: OperationLoad;
  /** Dependencies reachable and not draining (GET /api/v1/ready, grpc.health). */
  readiness: Readiness;
  /** Counters and histograms of this service instance (GET /metrics; docs/metrics.md). */
  metrics: Metrics;
  /** Monthly partitions: months created ahead and retention per table family (PARTITION_MONTHS_AHEAD, *_RETENTION_DAYS). */
  partitions: PartitionSettings;
}
