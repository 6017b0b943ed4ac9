// Start time and memory of the service: tsx on src/ (`npm run dev`) against node on the build
// (`npm start`, the container's CMD), in embedded and PostgreSQL mode. README "Production build"
// quotes its figures. Run: `npm run build && npx node scripts/measure-start.mjs [runs]`
// (PostgreSQL mode needs TEST_PG_ADMIN_URL's server, default postgres://postgres@127.0.0.1:5432/postgres,
// and Redis on TEST_REDIS_URL, default redis://127.0.0.1:6379; a scratch database is dropped after).
//
// Start time: spawn -> first 200 from /api/v1/health. RSS: /proc/<pid>/status VmRSS at that moment
// and after 3 s idle. One unrecorded warm-up per variant (tsx's transform cache, the OS page cache).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const runs = Number(process.argv[2] ?? 3);
const NODE_ARGS = ['--max-semi-space-size=32', '--max-old-space-size=256'];
const VARIANTS = { tsx: [...NODE_ARGS, '--import', 'tsx', 'src/main.ts'], build: [...NODE_ARGS, 'dist/src/main.js'] };
const PG_ADMIN = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function once(args, env) {
  const port = await freePort();
  const grpc = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port), GRPC_PORT: String(grpc), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}`);
    await sleep(10);
  }
  const startMs = performance.now() - t0;
  const rssReady = rssMb(child.pid);
  await sleep(3000);
  const rssIdle = rssMb(child.pid);
  child.kill('SIGTERM');
  await exited;
  return { startMs, rssReady, rssIdle };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs, d = 0) => `${xs.map((x) => x.toFixed(d)).join(' / ')} (median ${median(xs).toFixed(d)})`;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-measure-'));
const dbName = `fluxdesk_measure_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: PG_ADMIN });
await admin.connect();
await admin.query(`create database ${dbName}`);
const modes = {
  embedded: { DATA_DIR: dataDir },
  postgres: { DATABASE_URL: PG_ADMIN.replace(/\/[^/]*$/, `/${dbName}`), REDIS_URL: REDIS },
};
try {
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${runs} runs each`,
  );
  for (const [mode, env] of Object.entries(modes)) {
    // The first start of a mode creates the database (migrations): not what is measured.
    await once(VARIANTS.build, env);
    for (const [name, args] of Object.entries(VARIANTS)) {
      await once(args, env);
      const r = [];
      for (let i = 0; i < runs; i++) r.push(await once(args, env));
      console.log(
        `${mode.padEnd(8)} ${name.padEnd(5)}  start ms ${fmt(r.map((x) => x.startMs))}  RSS MB at ready ${fmt(r.map((x) => x.rssReady))}  after 3 s ${fmt(r.map((x) => x.rssIdle))}`,
      );
    }
  }
} finally {
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
}
