// The ONLY reader of process.env. Defaults make a bare `npm start` work (embedded mode).
import { z } from 'zod';

const optionalUrl = z.string().trim().min(1).optional();

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: optionalUrl,
  REDIS_URL: optionalUrl,
  DATA_DIR: z.string().min(1).default('./.fluxdesk'),
  PUBLIC_BASE_URL: optionalUrl,
  ERRORS_BASE_URL: optionalUrl,
  ALLOWED_EMAIL_DOMAINS: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(20),
});

export type Config = Readonly<{
  port: number;
  grpcPort: number;
  host: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  dataDir: string;
  publicBaseUrl: string;
  errorsBaseUrl: string;
  allowedEmailDomains: readonly string[] | null;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  dbPoolMax: number;
  serviceVersion: string;
}>;

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
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    dataDir: e.DATA_DIR,
    publicBaseUrl,
    errorsBaseUrl: (e.ERRORS_BASE_URL ?? `${publicBaseUrl}/errors`).replace(/\/+$/, ''),
    allowedEmailDomains: domains && domains.length > 0 ? Object.freeze(domains) : null,
    logLevel: e.LOG_LEVEL,
    dbPoolMax: e.DB_POOL_MAX,
    serviceVersion,
  });
}
