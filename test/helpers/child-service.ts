// `npm start`'s entry (src/main.ts) as child processes of a test, on real PostgreSQL and Redis:
// for tests that kill a process (kill -9) or run several at once. Each child picks its own free
// port (PORT=0) and names it in its "ready" log line; killChildren() ends every child left.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';
import { until } from '../integration/nudges/receiver.js';
import { REDIS_URL } from './harness.js';

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
