// Boots the real service once per test file on port 0 against a fresh PostgreSQL database and the
// shared Redis (keys are namespaced by random token ids), or on the embedded defaults.
// Tests isolate themselves by creating their own users and tokens.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService, type StartOptions } from '../../src/main.js';
import { ManualClock } from '../../src/infra/clock.js';
import { runOperator } from '../../src/transports/cli/operator-socket.js';
import { conformanceMode, ServerRecorder } from './conformance-recorder.js';

export const PG_ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Harness {
  svc: RunningService;
  clock: ManualClock;
  baseUrl: string;
  grpcUrl: string;
  databaseUrl?: string;
  close(): Promise<void>;
}

export async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `fluxdesk_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  return {
    url,
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface HarnessOptions {
  mode?: 'postgres' | 'embedded';
  databaseUrl?: string;
  redisUrl?: string | null;
  env?: Record<string, string>;
  clock?: ManualClock;
  /** Capture log lines (e.g. to prove tokens are never logged). */
  logger?: import('pino').Logger;
  /**
   * Check every response against the served OpenAPI document (test/helpers/conformance*.ts);
   * default on unless CONFORMANCE=off. Turn it off only for a service that cannot serve its
   * document (and say why).
   */
  conformance?: boolean;
  /** The action callbacks' sender (e.g. `createEgressClient({ allowHosts, timeoutMs })`); default the service's own. */
  callbackSender?: StartOptions['callbackSender'];
  /** WatchInbox heartbeat and re-check intervals; default the service's own (25 s, 1 s). */
  watchTiming?: StartOptions['watchTiming'];
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const mode = opts.mode ?? 'postgres';
  const clock = opts.clock ?? new ManualClock();
  let db: { url: string; drop(): Promise<void> } | undefined;
  let dataDir: string | undefined;
  // Tests run on the schema a finished rollout leaves (post-deploy migrations applied) unless a test says otherwise.
  const env: Record<string, string> = {
    PORT: '0',
    GRPC_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    MIGRATE_POST_DEPLOY: 'on',
    ...opts.env,
  };
  if (mode === 'postgres') {
    if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
    else {
      db = await createDatabase();
      env.DATABASE_URL = db.url;
    }
    if (opts.redisUrl !== null) env.REDIS_URL = opts.redisUrl ?? REDIS_URL;
    // One Redis namespace per database, as for installations sharing a Redis: services on one
    // database (several nodes) share their windows, and a file's per-address sign-in windows are
    // its own (every test client is 127.0.0.1).
    env.REDIS_KEY_PREFIX ??= `${env.DATABASE_URL.slice(env.DATABASE_URL.lastIndexOf('/') + 1)}:`;
  } else {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-test-'));
    env.DATA_DIR = dataDir;
  }
  const config = loadConfig(env, '0.25.935');
  const recorder = opts.conformance !== false && conformanceMode() !== 'off' ? new ServerRecorder() : undefined;
  const svc = await startService(config, {
    clock,
    logger: opts.logger,
    instrumentHttp: recorder?.install,
    callbackSender: opts.callbackSender,
    watchTiming: opts.watchTiming,
  });
  await recorder?.attach(svc.app);
  const baseUrl = svc.baseUrl;
  return {
    svc,
    clock,
    baseUrl,
    grpcUrl: `http://127.0.0.1:${svc.grpcPort}`,
    databaseUrl: env.DATABASE_URL,
    async close() {
      await svc.close();
      await db?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs an operator operation in-process (what the CLI does), throwing on failure. */
export async function operator<T = any>(h: Harness, op: string, input: Record<string, unknown>): Promise<T> {
  const r = await runOperator(h.svc.deps, op, input);
  if (!r.ok) throw new Error(`${op} failed: ${JSON.stringify(r.error)}`);
  return r.output as T;
}

let seq = 0;
export function uniqueEmail(tag = 'u'): string {
  return `${tag}-${process.pid}-${Date.now().toString(36)}-${seq++}-${randomBytes(3).toString('hex')}@example.test`;
}

export interface TestUser {
  userId: string;
  email: string;
}

export async function newUser(h: Harness, role = 'member'): Promise<TestUser> {
  return operator(h, 'users.create', { email: uniqueEmail(), name: 'Test User', role });
}

export interface TestToken {
  tokenId: string;
  token: string;
  user: TestUser;
}

/** A fresh user with a self-service personal token (prefix `personal.`). */
export async function newPersonalToken(h: Harness, opts: { user?: TestUser; dailyLimit?: number } = {}): Promise<TestToken> {
  const user = opts.user ?? (await newUser(h));
  const t = await operator<{ tokenId: string; token: string }>(h, 'tokens.create_personal', {
    email: user.email,
    label: 'test',
    daily_limit: opts.dailyLimit ?? 200,
  });
  return { ...t, user };
}

let eventSeq = 0;
/** A valid event for a self-service token; override any field. */
export function event(h: Harness, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    spec_version: '2',
    event_id: `ev-${process.pid}-${Date.now().toString(36)}-${eventSeq++}`,
    event_type: 'personal.build.failed',
    severity: 'warn',
    title: 'Build failed on main',
    occurred_at: new Date(h.clock.now().getTime() - 60_000).toISOString(),
    ...over,
  };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function http(
  h: Harness,
  method: string,
  urlPath: string,
  opts: { token?: string; body?: unknown; rawBody?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Uint8Array | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${h.baseUrl}${urlPath}`, { method, headers, body: body as BodyInit | undefined });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export const publish = (h: Harness, token: string, body: unknown, headers?: Record<string, string>) =>
  http(h, 'POST', '/api/v1/events', { token, body, headers });
export const publishLegacy = (h: Harness, token: string, body: unknown, headers?: Record<string, string>) =>
  http(h, 'POST', '/api/internal-os/integrations/inbound/personal', { token, body, headers });

/**
 * Holds a row lock (`select ... for update`) in a transaction of its own connection until
 * release(): a statement of the service that needs the row waits meanwhile (PostgreSQL only).
 */
export async function holdRowLock(h: Harness, table: string, id: string): Promise<{ release(): Promise<void> }> {
  const c = new pg.Client({ connectionString: h.databaseUrl });
  await c.connect();
  await c.query('begin');
  const { rowCount } = await c.query(`select 1 from ${table} where id = $1 for update`, [id]);
  if (rowCount !== 1) throw new Error(`holdRowLock: no ${table} row ${id}`);
  return {
    async release() {
      await c.query('commit');
      await c.end();
    },
  };
}
