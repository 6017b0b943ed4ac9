// A private, throw-away redis-server for fault tests (never the shared 6379): no persistence,
// its own temp dir, stoppable and restartable on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface PrivateRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server (if running) and removes its directory. */
  dispose(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-redis-'));
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    if (child) return;
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    // Never leave a stray server behind if the test process dies first.
    const reap = () => proc.kill('SIGKILL');
    process.once('exit', reap);
    proc.once('exit', () => process.off('exit', reap));
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const onData = (b: Buffer) => {
        out += b.toString();
        if (out.includes('Ready to accept connections')) {
          proc.stdout!.off('data', onData);
          resolve();
        }
      };
      proc.stdout!.on('data', onData);
      proc.once('exit', (code) => reject(new Error(`redis-server on port ${port} exited (${code}): ${out.slice(-500)}`)));
      proc.once('error', reject);
    });
    proc.stdout!.resume();
    proc.stderr!.resume();
  }

  async function stop(): Promise<void> {
    const proc = child;
    if (!proc) return;
    child = null;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    });
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns true (for reconnection, not for time rules). */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 5_000, everyMs = 50): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
