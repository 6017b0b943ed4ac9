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
  VAPID_SUBJECT: z.string().regex(/^(mailto:|https:\/\/)/, { error: 'must be a mailto: or https:// URL' }).optional(),
  // Mail (token inactivity warnings) through the mail outbox; none configured = recorded as skipped.
  SMTP_URL: z.string().trim().regex(/^smtps?:\/\/[^\s]+$/i, { error: 'must be an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z.string().trim().min(3).max(200).optional(),
  // Hosts webhook action callbacks may reach over plain http and on private/loopback addresses.
  EGRESS_ALLOW_HOSTS: z.string().optional(),
});

export type Config = Readonly<{
  port: number;
  grpcPort: number;
  /** GET /metrics is served here instead of on `port`; null = on `port`. */
  metricsPort: number | null;
  host: string;
  databaseUrl: string | undefined;
  /** REDIS_URL as given (may hold a password: never logged); parseRedisUrl says whether it names a cluster. */
  redisUrl: string | undefined;
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
  const domains = e.ALLOWED_EMAIL_DOMAINS?.split(',').map((d) => d.trim().toLowerCase()).filter(Boolean);
  return Object.freeze({
    port: e.PORT,
    grpcPort: e.GRPC_PORT,
    metricsPort: e.METRICS_PORT ?? null,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
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
    }),
    mail: Object.freeze({ smtpUrl: e.SMTP_URL ?? null, from: e.MAIL_FROM ?? 'fluxdesk <no-reply@fluxdesk.invalid>' }),
    egressAllowHosts: parseHostList(e.EGRESS_ALLOW_HOSTS),
  });
}
