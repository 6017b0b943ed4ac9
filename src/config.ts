// The ONLY reader of process.env. Defaults make a bare `npm start` work (embedded mode).
import { z } from 'zod';
import { parseHostList } from './domain/urls.rules.js';
import { parseRedisUrl } from './infra/redis-url.js';

const optionalUrl = z.string().trim().min(1).optional();

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  // GET /metrics on a listener of its own (on HOST), and then not on PORT (docs/metrics.md).
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: optionalUrl,
  // One server (`redis://`, `rediss://`) or a Redis Cluster (`redis+cluster://host:port,host:port`): parseRedisUrl.
  REDIS_URL: optionalUrl.superRefine((v, ctx) => {
    if (v === undefined) return;
    try {
      parseRedisUrl(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
    }
  }),
  // Put before every Redis key and the inbox feed's channel: installations sharing one Redis stay apart.
  REDIS_KEY_PREFIX: z
    .string()
    .max(100)
    // No braces: a key's Redis Cluster hash tag must stay the one the stores put in it.
    .regex(/^[\x21-\x7a|~]*$/, { error: 'must be visible ASCII characters other than { and }' })
    .default(''),
  DATA_DIR: z.string().min(1).default('./.fluxdesk'),
  PUBLIC_BASE_URL: optionalUrl,
  ERRORS_BASE_URL: optionalUrl,
  ALLOWED_EMAIL_DOMAINS: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(20),
  // A pooled PostgreSQL connection is replaced after this long (0 = never): its prepared statements
  // are planned again on the new one, so a plan made while a table was small does not outlive it.
  DB_CONN_MAX_LIFETIME_S: z.coerce.number().int().min(0).max(86400).default(900),
  SHUTDOWN_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).default(25),
  SHUTDOWN_DELAY_S: z.coerce.number().int().min(0).max(600).default(0),
  // Nudges (browser push and chat) through the outbox and the pg-boss job queue.
  WORKER: z.enum(['on', 'off']).default('on'),
  NUDGE_RETRY_LIMIT: z.coerce.number().int().min(0).max(20).default(5),
  NUDGE_RETRY_DELAY_S: z.coerce.number().int().min(1).max(3600).default(5),
  NUDGE_RETRY_DELAY_MAX_S: z.coerce.number().int().min(1).max(86400).default(600),
  NUDGE_JOB_EXPIRE_S: z.coerce.number().int().min(1).max(3600).default(60),
  NUDGE_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(200),
  NUDGE_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  NUDGE_RELAY_INTERVAL_MS: z.coerce.number().int().min(10).max(60000).default(1000),
  NUDGE_SEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(30000).default(5000),
  NUDGE_PUSH_TTL_S: z.coerce.number().int().min(0).max(2419200).default(86400),
  NUDGE_EGRESS_ALLOW_HOSTS: z.string().optional(),
  NUDGE_YIELD_INFLIGHT: z.coerce.number().int().min(0).max(100000).default(16),
  NUDGE_MAX_DEFER_S: z.coerce.number().int().min(0).max(3600).default(30),
  VAPID_SUBJECT: z
    .string()
    .regex(/^(mailto:|https:\/\/)/, { error: 'must be a mailto: or https:// URL' })
    .optional(),
  // Mail (token inactivity warnings) through the mail outbox; none configured = recorded as skipped.
  SMTP_URL: z
    .string()
    .trim()
    .regex(/^smtps?:\/\/[^\s]+$/i, { error: 'must be an smtp:// or smtps:// URL' })
    .optional(),
  MAIL_FROM: z.string().trim().min(3).max(200).optional(),
  // Hosts webhook action callbacks may reach over plain http and on private/loopback addresses.
  EGRESS_ALLOW_HOSTS: z.string().optional(),
  // Web sign-in through company SSO (docs/web-sign-in.md): OpenID Connect discovery at the issuer,
  // authorization code + PKCE, redirect URI ${PUBLIC_BASE_URL}/auth/oidc/callback. All unset = no SSO
  // (sign-in by `fluxdesk login-link` only). The secret may be unset for a public client (PKCE only).
  OIDC_ISSUER_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  OIDC_CLIENT_ID: z.string().trim().min(1).max(500).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).max(2000).optional(),
  // A provider that never sends `email_verified` (docs/web-sign-in.md lists which): its email is
  // trusted for the first sign-in's match by email. An explicit `false` is refused whatever this says.
  OIDC_TRUST_EMAIL: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  // Monthly partitions (docs/scaling.md section 4): whole months older than these many days are
  // dropped by the daily `partitions.retention` job. Audit: 400 days, so the whole of the same month a
  // year ago is always there (13 months and a margin). Deliveries: 90 days, a quarter of inbox history
  // (deliveries, their keys, inbox rows, supplements, hold entries and trace).
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(400),
  DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(90),
  // Months of partitions kept created ahead of the current one (at start-up and daily); readiness
  // fails while next month's is missing, so at least 1.
  PARTITION_MONTHS_AHEAD: z.coerce.number().int().min(1).max(120).default(2),
  // Post-deploy migrations (infra/db/migrations/index.ts) at start-up too: `on` only where no node of
  // the previous release can still be running (a single node, a fresh install). Embedded: always.
  MIGRATE_POST_DEPLOY: z.enum(['on', 'off']).default('off'),
  // Proxies in front of this process that append to X-Forwarded-For (0: the client is the socket's peer).
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  // Push service hosts besides the browsers' own (domain/nudges/push-endpoint.rules.ts), `*.` for subdomains.
  PUSH_ENDPOINT_ALLOW_HOSTS: z.string().optional(),
  // OpenTelemetry traces (README "Tracing"): the standard OTEL_* variables, read here only.
  OTEL_SDK_DISABLED: z.enum(['true', 'false', 'TRUE', 'FALSE']).optional(),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'console', 'none']).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  // This build exports OTLP over HTTP with the JSON encoding, which every OTLP/HTTP receiver accepts.
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/json', 'http/protobuf'], { error: 'only OTLP over HTTP is supported (http/json or http/protobuf)' }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z
    .enum(['http/json', 'http/protobuf'], { error: 'only OTLP over HTTP is supported (http/json or http/protobuf)' })
    .optional(),
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: z.coerce.number().int().min(1).max(600000).optional(),
  OTEL_EXPORTER_OTLP_TIMEOUT: z.coerce.number().int().min(1).max(600000).optional(),
  OTEL_SERVICE_NAME: z.string().trim().min(1).max(200).optional(),
  OTEL_TRACES_SAMPLER: z
    .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
    .optional(),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).max(600000).optional(),
  OTEL_BSP_MAX_QUEUE_SIZE: z.coerce.number().int().min(1).max(1000000).optional(),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(1000000).optional(),
});

export type TracingSampler = NonNullable<z.infer<typeof EnvSchema>['OTEL_TRACES_SAMPLER']>;

/** OpenTelemetry tracing, on only when an OTEL_* variable asks for it (see tracingConfig). */
export type TracingConfig = Readonly<{
  exporter: 'otlp' | 'console';
  /** OTLP/HTTP traces URL (the `/v1/traces` one). */
  endpoint: string;
  /** Sent with every export (may hold credentials: never logged). */
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  serviceName: string;
  sampler: TracingSampler;
  /** The ratio of the traceidratio samplers, 0..1. */
  samplerArg: number;
  scheduleDelayMs: number;
  maxQueueSize: number;
  maxExportBatchSize: number;
}>;

export type Config = Readonly<{
  port: number;
  grpcPort: number;
  /** GET /metrics is served here instead of on `port`; null = on `port`. */
  metricsPort: number | null;
  host: string;
  databaseUrl: string | undefined;
  /** REDIS_URL as given (may hold a password: never logged); parseRedisUrl says whether it names a cluster. */
  redisUrl: string | undefined;
  /** REDIS_KEY_PREFIX ('' = none): before every key and the inbox feed channel. */
  redisKeyPrefix: string;
  dataDir: string;
  publicBaseUrl: string;
  errorsBaseUrl: string;
  allowedEmailDomains: readonly string[] | null;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  dbPoolMax: number;
  dbConnMaxLifetimeS: number;
  /** SIGTERM / SIGINT: the graceful stop must end within this long, or the process exits 1. */
  shutdownTimeoutS: number;
  /** Seconds between turning not-ready and closing the listeners (load balancers' probe interval). */
  shutdownDelayS: number;
  serviceVersion: string;
  nudges: Readonly<{
    worker: boolean;
    retryLimit: number;
    retryDelaySeconds: number;
    retryDelayMaxSeconds: number;
    expireInSeconds: number;
    batchSize: number;
    concurrency: number;
    relayIntervalMs: number;
    sendTimeoutMs: number;
    pushTtlSeconds: number;
    /** Operations in flight from which the dispatcher yields to requests (0 = never). */
    yieldAtInFlight: number;
    /** Longest busy spell nudges are deferred for (then sent at full speed even under load). */
    maxDeferSeconds: number;
    /** Hosts reachable over plain http and on private/loopback addresses (local test receivers). Empty by default. */
    egressAllowHosts: readonly string[];
    vapidSubject: string;
    /** Extra push service hosts (PUSH_ENDPOINT_ALLOW_HOSTS) a push subscription's endpoint may name; `*.` entries match subdomains. */
    pushEndpointAllowHosts: readonly string[];
  }>;
  mail: Readonly<{
    /** SMTP relay (may hold credentials: never logged); null = mails are recorded as skipped. */
    smtpUrl: string | null;
    from: string;
  }>;
  /**
   * Hostnames or IP literals, as written in a webhook action URL, exempt from the https-only and
   * public-address rules of the action-callback egress client (local test receivers). Empty = strict.
   */
  egressAllowHosts: readonly string[];
  /** OpenTelemetry traces; null = off (no SDK loaded). */
  tracing: TracingConfig | null;
  /** Web sign-in through OpenID Connect (OIDC_*); null = not configured (login links only). */
  oidc: OidcConfig | null;
  /** Proxies in front that append to X-Forwarded-For; the client address is the one this many hops back (0 = the socket's peer). */
  trustProxyHops: number;
  /** Monthly partitions: retention per table family (days) and months created ahead. */
  partitions: Readonly<{ auditRetentionDays: number; deliveryRetentionDays: number; monthsAhead: number }>;
  /** Apply the post-deploy migrations at start-up (MIGRATE_POST_DEPLOY=on). */
  migratePostDeploy: boolean;
}>;

export type OidcConfig = Readonly<{
  issuerUrl: string;
  clientId: string;
  /** Never logged; null = a public client (PKCE only, token endpoint auth `none`). */
  clientSecret: string | null;
  /** OIDC_TRUST_EMAIL: a missing `email_verified` claim counts as verified (providers that never send it). */
  trustEmail: boolean;
}>;

/** A comma list of hostnames or IP literals (`[::1]` or `::1`), lower-cased, without a trailing dot. */
/** Parses the environment once; throws a readable error for bad values. */
export function loadConfig(env: Record<string, string | undefined> = process.env, serviceVersion = '0.0.0'): Config {
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://${e.HOST}:${e.PORT}`).replace(/\/+$/, '');
  const domains = e.ALLOWED_EMAIL_DOMAINS?.split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  return Object.freeze({
    port: e.PORT,
    grpcPort: e.GRPC_PORT,
    metricsPort: e.METRICS_PORT ?? null,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    dataDir: e.DATA_DIR,
    publicBaseUrl,
    errorsBaseUrl: (e.ERRORS_BASE_URL ?? `${publicBaseUrl}/errors`).replace(/\/+$/, ''),
    allowedEmailDomains: domains && domains.length > 0 ? Object.freeze(domains) : null,
    logLevel: e.LOG_LEVEL,
    dbPoolMax: e.DB_POOL_MAX,
    dbConnMaxLifetimeS: e.DB_CONN_MAX_LIFETIME_S,
    shutdownTimeoutS: e.SHUTDOWN_TIMEOUT_S,
    shutdownDelayS: e.SHUTDOWN_DELAY_S,
    serviceVersion,
    nudges: Object.freeze({
      worker: e.WORKER === 'on',
      retryLimit: e.NUDGE_RETRY_LIMIT,
      retryDelaySeconds: e.NUDGE_RETRY_DELAY_S,
      retryDelayMaxSeconds: e.NUDGE_RETRY_DELAY_MAX_S,
      expireInSeconds: e.NUDGE_JOB_EXPIRE_S,
      batchSize: e.NUDGE_BATCH_SIZE,
      concurrency: e.NUDGE_CONCURRENCY,
      relayIntervalMs: e.NUDGE_RELAY_INTERVAL_MS,
      sendTimeoutMs: e.NUDGE_SEND_TIMEOUT_MS,
      pushTtlSeconds: e.NUDGE_PUSH_TTL_S,
      yieldAtInFlight: e.NUDGE_YIELD_INFLIGHT,
      maxDeferSeconds: e.NUDGE_MAX_DEFER_S,
      // Same normalisation as EGRESS_ALLOW_HOSTS and as every target host (domain/urls.rules.ts).
      egressAllowHosts: parseHostList(e.NUDGE_EGRESS_ALLOW_HOSTS),
      // Push services contact the operator here; an https public URL serves, else a mailto placeholder.
      vapidSubject: e.VAPID_SUBJECT ?? (publicBaseUrl.startsWith('https://') ? publicBaseUrl : 'mailto:fluxdesk-push@invalid'),
      pushEndpointAllowHosts: Object.freeze(
        (e.PUSH_ENDPOINT_ALLOW_HOSTS ?? '')
          .split(',')
          .map((h) => h.trim().toLowerCase().replace(/\.$/, ''))
          .filter(Boolean),
      ),
    }),
    mail: Object.freeze({ smtpUrl: e.SMTP_URL ?? null, from: e.MAIL_FROM ?? 'fluxdesk <no-reply@fluxdesk.invalid>' }),
    egressAllowHosts: parseHostList(e.EGRESS_ALLOW_HOSTS),
    tracing: tracingConfig(e),
    oidc: oidcConfig(e),
    trustProxyHops: e.TRUST_PROXY_HOPS,
    partitions: Object.freeze({
      auditRetentionDays: e.AUDIT_RETENTION_DAYS,
      deliveryRetentionDays: e.DELIVERY_RETENTION_DAYS,
      monthsAhead: e.PARTITION_MONTHS_AHEAD,
    }),
    migratePostDeploy: e.MIGRATE_POST_DEPLOY === 'on',
  });
}

/** OIDC_ISSUER_URL and OIDC_CLIENT_ID together turn SSO on; one without the other is a mistake worth refusing. */
function oidcConfig(e: z.infer<typeof EnvSchema>): OidcConfig | null {
  if (e.OIDC_ISSUER_URL === undefined && e.OIDC_CLIENT_ID === undefined) {
    if (e.OIDC_CLIENT_SECRET !== undefined) throw new Error('invalid configuration:\n  OIDC_CLIENT_SECRET: set OIDC_ISSUER_URL and OIDC_CLIENT_ID too');
    return null;
  }
  if (e.OIDC_ISSUER_URL === undefined || e.OIDC_CLIENT_ID === undefined)
    throw new Error(
      `invalid configuration:\n  ${e.OIDC_ISSUER_URL === undefined ? 'OIDC_ISSUER_URL' : 'OIDC_CLIENT_ID'}: required when the other OIDC_* variables are set`,
    );
  return Object.freeze({
    issuerUrl: e.OIDC_ISSUER_URL,
    clientId: e.OIDC_CLIENT_ID,
    clientSecret: e.OIDC_CLIENT_SECRET ?? null,
    trustEmail: e.OIDC_TRUST_EMAIL === 'true',
  });
}

/**
 * Tracing is on when an exporter is asked for: OTEL_TRACES_EXPORTER=otlp|console, or an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_ENDPOINT / _TRACES_ENDPOINT). OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none
 * turn it off. Defaults as the OpenTelemetry specification states them.
 */
function tracingConfig(e: z.infer<typeof EnvSchema>): TracingConfig | null {
  if (e.OTEL_SDK_DISABLED?.toLowerCase() === 'true' || e.OTEL_TRACES_EXPORTER === 'none') return null;
  const endpointSet = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined || e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined;
  if (e.OTEL_TRACES_EXPORTER === undefined && !endpointSet) return null;
  const base = (e.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318').replace(/\/+$/, '');
  return Object.freeze({
    exporter: e.OTEL_TRACES_EXPORTER ?? 'otlp',
    // The signal-specific URL is used as given; the general one gets the signal's path appended.
    endpoint: e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`,
    headers: Object.freeze({
      ...otlpHeaders(e.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...otlpHeaders(e.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    }),
    timeoutMs: e.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? e.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000,
    serviceName: e.OTEL_SERVICE_NAME ?? 'fluxdesk',
    sampler: e.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on',
    samplerArg: e.OTEL_TRACES_SAMPLER_ARG ?? 1,
    scheduleDelayMs: e.OTEL_BSP_SCHEDULE_DELAY ?? 5_000,
    maxQueueSize: e.OTEL_BSP_MAX_QUEUE_SIZE ?? 2048,
    maxExportBatchSize: Math.min(e.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ?? 512, e.OTEL_BSP_MAX_QUEUE_SIZE ?? 2048),
  });
}

/** `key1=value1,key2=value2` (W3C Baggage form, values percent-decoded); the message never repeats a value. */
function otlpHeaders(raw: string | undefined, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (raw ?? '').split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const key = eq > 0 ? part.slice(0, eq).trim() : '';
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      value = '';
    }
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key) || value === '' || /[\r\n\0]/.test(value))
      throw new Error(`invalid configuration:\n  ${name}: must be key=value pairs separated by commas`);
    out[key.toLowerCase()] = value;
  }
  return out;
}
