// A private, throw-away redis-server for fault tests (never the shared 6379): no persistence,
// its own temp dir, stoppable and restartable on the same port; or a private Redis Cluster of them.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

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
  const server = redisProcess(port, dir, []);
  await server.start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start: server.start,
    stop: server.stop,
    async dispose() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One redis-server child on `port` (no persistence, files in `dir`), startable again after stop. */
function redisProcess(port: number, dir: string, extraArgs: string[]): { start(): Promise<void>; stop(): Promise<void> } {
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    if (child) return;
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extraArgs], {
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

  return { start, stop };
}

export interface PrivateRedisCluster {
  /** Client ports of the masters, in creation order. */
  ports: number[];
  /** REDIS_URL naming the cluster by `seeds` of its nodes (all by default). */
  url(seeds?: number): string;
  /** Kills node i (SIGKILL) / starts it again on its port with its nodes.conf (it rejoins). */
  stop(i: number): Promise<void>;
  start(i: number): Promise<void>;
  /** Until every running node reports cluster_state:ok. */
  waitOk(timeoutMs?: number): Promise<void>;
  /** Stops every node and removes the directory. */
  dispose(): Promise<void>;
}

/**
 * A private Redis Cluster of `masters` masters without replicas (never the shared 6379): one
 * redis-server per master on free ports (cluster bus ports chosen too), joined with
 * `redis-cli --cluster create`, ready when every node reports cluster_state:ok.
 */
export async function privateRedisCluster(masters = 3): Promise<PrivateRedisCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-redis-cluster-'));
  const ports: number[] = [];
  const busPorts: number[] = [];
  while (ports.length < masters) {
    const [p, b] = [await freePort(), await freePort()];
    if (p !== b && ![...ports, ...busPorts].includes(p) && ![...ports, ...busPorts].includes(b)) {
      ports.push(p);
      busPorts.push(b);
    }
  }
  const nodes = ports.map((port, i) =>
    // A node is declared failed after 5 s unreachable (the default 15 s would only slow a test down).
    redisProcess(port, dir, [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `nodes-${port}.conf`,
      '--cluster-port',
      String(busPorts[i]),
      '--cluster-node-timeout',
      '5000',
    ]),
  );
  const running = new Set<number>();
  const cluster: PrivateRedisCluster = {
    ports,
    url: (seeds = masters) =>
      `redis+cluster://${ports
        .slice(0, seeds)
        .map((p) => `127.0.0.1:${p}`)
        .join(',')}`,
    async stop(i) {
      await nodes[i]!.stop();
      running.delete(i);
    },
    async start(i) {
      await nodes[i]!.start();
      running.add(i);
    },
    async waitOk(timeoutMs = 15_000) {
      await waitFor(
        async () => {
          const states = await Promise.all(
            [...running].map((i) =>
              redisCli(ports[i]!, ['cluster', 'info']).then(
                (out) => out.includes('cluster_state:ok'),
                () => false,
              ),
            ),
          );
          return states.every(Boolean);
        },
        timeoutMs,
        100,
      );
    },
    async dispose() {
      await Promise.all(nodes.map((n) => n.stop()));
      running.clear();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    for (let i = 0; i < masters; i++) await cluster.start(i);
    await execFileAsync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: 20_000,
    });
    await cluster.waitOk();
  } catch (err) {
    await cluster.dispose();
    throw err;
  }
  return cluster;
}

/** `redis-cli -p port <args>`: its output (throws when it fails). */
export async function redisCli(port: number, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 5_000 });
  return stdout;
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
