// The service under benchmark, shared by bench:tools, bench:mcp and bench:work (bench.ts keeps its
// own child handling for the receiver and RSS sampling, and uses freePort / startFlags): a child
// process started with the V8 flags of `npm start`, on free ports, against the bench's database;
// healthy before the scenarios start, stopped (SIGTERM, then SIGKILL) and the database dropped
// after. BENCH_CPU_PROF=<dir>: the service runs with --cpu-prof there (written on SIGTERM).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { REDIS_URL } from '../test/helpers/harness.js';

export const ROOT = path.resolve(import.meta.dirname, '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** The V8 flags package.json's start script gives Node, so the bench measures the shipped settings. */
export function startFlags(root = ROOT): string[] {
  const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  // The node command the script execs (after its build check: `node scripts/build.mjs ... && exec node ...`).
  return start
    .split('&&')
    .at(-1)!
    .split(/\s+/)
    .filter((a) => a.startsWith('--') && a !== '--import');
}

/** --cpu-prof flags when BENCH_CPU_PROF names a directory. */
export function profileFlags(): string[] {
  return process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
}

export interface BenchServer {
  proc: ChildProcess;
  baseUrl: string;
  stop(): Promise<void>;
}

export interface BenchServerOptions {
  /** The tree to run (bench:vs runs another commit's); default this one. */
  root?: string;
  /** Run its built dist/src/main.js, as `npm start` does, instead of src/main.ts through tsx. */
  dist?: boolean;
}

/** Starts the service on `databaseUrl` with `env` on top of the defaults; resolves once /api/v1/health answers 200. */
export async function startBenchServer(databaseUrl: string, env: Record<string, string> = {}, opts: BenchServerOptions = {}): Promise<BenchServer> {
  const root = opts.root ?? ROOT;
  const port = await freePort();
  const entry = opts.dist ? ['dist/src/main.js'] : ['--import', 'tsx', 'src/main.ts'];
  const proc = spawn(process.execPath, [...startFlags(root), ...profileFlags(), ...entry], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      GRPC_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const server: BenchServer = {
    proc,
    baseUrl: `http://127.0.0.1:${port}`,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + 60_000;
  while (
    (await fetch(`${server.baseUrl}/api/v1/health`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (proc.exitCode !== null) throw new Error(`the service exited during start (code ${proc.exitCode})`);
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error('the service was not healthy after 60 s');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return server;
}

/** Runs a bench's main and exits with its code (2 when it threw). */
/** The p-th percentile of `xs` in ms, to 0.1 (null for none). */
export const percentile = (xs: number[], p: number): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10;
};

/** `fn` over `items`, at most `limit` at a time; results in input order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let i = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (i < items.length) {
        const k = i++;
        out[k] = await fn(items[k]!, k);
      }
    }),
  );
  return out;
}

export function runBench(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(2);
    },
  );
}

/** A child process of a bench (service, receiver, bare Fastify), with the last 40 lines of its output. */
export interface Child {
  name: string;
  proc: ChildProcess;
  tail: string[];
  exited: Promise<number | null>;
}

export function spawnChild(name: string, args: string[], env: Record<string, string>): Child {
  const proc = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) tail.push(line);
    if (tail.length > 40) tail.splice(0, tail.length - 40);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { name, proc, tail, exited };
}

/** SIGTERM, then SIGKILL after `killAfterMs`. */
export async function stopChild(c: Child | undefined, killAfterMs = 10_000): Promise<void> {
  if (!c || c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  c.proc.kill('SIGTERM');
  const timer = setTimeout(() => c.proc.kill('SIGKILL'), killAfterMs);
  await c.exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers 200; fails when the child exits or the time is up. */
export async function waitFor200(url: string, child: Child, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.proc.exitCode !== null) throw new Error(`${child.name} exited (${child.proc.exitCode}):\n${child.tail.join('\n')}`);
    if (
      (await fetch(url).then(
        (r) => r.status,
        () => 0,
      )) === 200
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.name}: ${url} not 200 after ${timeoutMs} ms:\n${child.tail.join('\n')}`);
}
