// `npm start`'s entry (src/main.ts) as child processes of a test, on real PostgreSQL and Redis:
// for tests that kill a process (kill -9) or run several at once. Each child picks its own free
// port (PORT=0) and names it in its "ready" log line; killChildren() ends every child left.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startReceiver, until, type Receiver } from '../integration/nudges/receiver.js';
import { loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';
import { runOperator } from '../../src/transports/cli/operator-socket.js';
import { createDatabase, REDIS_URL, uniqueEmail } from './harness.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Child {
  proc: ChildProcess;
  baseUrl: string;
  log: string[];
}
const children: Child[] = [];

/** Kills (SIGKILL) every child still running. */
export function killChildren(): void {
  for (const c of children.splice(0)) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
}

/**
 * `npm start`'s entry in a child process on PORT=0: it picks its own free port (no race with other
 * processes for a port chosen here) and names it in its "ready" log line.
 */
export async function startChild(databaseUrl: string, env: Record<string, string>): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      LOG_LEVEL: 'info',
      NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1',
      PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child: Child = { proc, baseUrl: '', log: [] };
  const keep = (b: Buffer) => child.log.push(...b.toString('utf8').split('\n').filter(Boolean));
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  children.push(child);
  const readyPort = () => {
    for (const line of child.log) {
      if (!line.startsWith('{') || !line.includes('ready on')) continue;
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg?.includes('ready on') && entry.port) return entry.port;
    }
    return undefined;
  };
  const port = await until(
    'child ready',
    () => {
      if (proc.exitCode !== null) throw new Error(`child exited ${proc.exitCode}: ${child.log.join('\n')}`);
      return readyPort();
    },
    60_000,
  );
  child.baseUrl = `http://127.0.0.1:${port}`;
  expect((await fetch(`${child.baseUrl}/api/v1/health`)).status).toBe(200);
  return child;
}

export async function kill9(c: Child): Promise<void> {
  const exited = new Promise((r) => c.proc.once('exit', r));
  c.proc.kill('SIGKILL');
  await exited;
}

export interface ChatUser {
  /** A personal token (publishes) and an agent token (read:inbox, write:inbox) of the user. */
  inbound: string;
  agent: string;
  userId: string;
  /** Path under the receiver its chat nudges go to. */
  chatPath: string;
}

/**
 * A user made on `databaseUrl` before the children start (operator operations of the service's
 * own code), with a chat destination at `receiverUrl` for critical and warn nudges; `preferences`
 * adds columns of nudge_preferences (column -> [SQL value text, its parameter when the text has a `?`]).
 */
export async function chatUser(databaseUrl: string, receiverUrl: string, tag: string, preferences: Record<string, [string, unknown]> = {}): Promise<ChatUser> {
  const deps = await createDeps(loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', WORKER: 'off' }, 'test'), { role: 'cli' });
  try {
    const op = async <T>(name: string, input: Record<string, unknown>): Promise<T> => {
      const r = await runOperator(deps, name, input);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      return r.output as T;
    };
    const email = uniqueEmail(tag);
    const { userId } = await op<{ userId: string }>('users.create', { email, name: tag });
    const { token: inbound } = await op<{ token: string }>('tokens.create_personal', { email, label: tag, daily_limit: 1000 });
    const { token: agent } = await op<{ token: string }>('agent_tokens.create', { email, scopes: ['read:inbox', 'write:inbox'] });
    const chatPath = `/chat/${tag}-${userId.slice(0, 8)}`;
    const extra = Object.entries(preferences);
    await deps.orm.em
      .fork()
      .getConnection()
      .execute(
        `insert into nudge_preferences (user_id, push_severities, chat_enabled, chat_url, chat_style, updated_at${extra.map(([c]) => `, ${c}`).join('')})
         values (?, '{critical,warn}', true, ?, 'slack', now()${extra.map(([, [v]]) => `, ${v}`).join('')})`,
        [userId, `${receiverUrl}${chatPath}`, ...extra.filter(([, [v]]) => v.includes('?')).map(([, [, p]]) => p)],
      );
    return { inbound, agent, userId, chatPath };
  } finally {
    await deps.close();
  }
}

export interface ChildWorld {
  /** A local chat and push receiver. */
  rx: Receiver;
  /** A fresh database the children share. */
  db: { url: string; drop(): Promise<void> };
}

/**
 * Registers the file's hooks: a receiver and a database before the tests, every child killed
 * after each test, all of it cleaned up at the end. The fields are set once beforeAll ran.
 */
export function childWorld(): ChildWorld {
  const world = {} as ChildWorld;
  beforeAll(async () => {
    world.rx = await startReceiver();
    world.db = await createDatabase();
  });
  afterEach(() => killChildren());
  afterAll(async () => {
    killChildren();
    await world.db?.drop();
    await world.rx?.close();
  });
  return world;
}
