// The production build and the container (README "Production build" and
// "Container"). No Docker engine runs here, so the test reads the Dockerfile and starts EXACTLY the
// command its CMD runs (parsed from the file, so the two cannot drift), with the image's ENV, on the
// build `npm run build` makes: health 200, readiness 200 (the HEALTHCHECK command itself exits 0),
// one event published through REST, a served protocol text (an asset read from disk), the CLI
// against it, SIGTERM -> exit 0. Once with PostgreSQL + Redis (the compose app), once embedded
// (a bare `docker run`). Then `npm start`'s build step in a small scratch project: a stale or
// missing dist/ is rebuilt before node starts, a current one is not, a type error fails the build.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protocolText } from '../../../src/transports/legacy/protocol-text.js';
import { createDatabase, REDIS_URL, uniqueEmail } from '../../helpers/harness.js';
import { freePort } from '../../helpers/redis-server.js';

const ROOT = process.cwd();
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};

interface Dockerfile {
  stages: { from: string; lines: string[] }[];
  args: Record<string, string>;
}
/** Instructions with their continuation lines joined; comments dropped. */
function readDockerfile(): Dockerfile {
  const joined = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((l) => !l.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const out: Dockerfile = { stages: [], args: {} };
  for (const raw of joined.split('\n')) {
    const line = raw.trim().replace(/\s+/g, ' ');
    if (!line) continue;
    const m = /^ARG (\w+)=(\S+)$/.exec(line);
    if (m && out.stages.length === 0) out.args[m[1]!] = m[2]!;
    else if (line.startsWith('FROM ')) out.stages.push({ from: line.slice(5).replace(/\$\{(\w+)\}/g, (_, a: string) => out.args[a] ?? ''), lines: [] });
    else out.stages.at(-1)?.lines.push(line);
  }
  return out;
}
const docker = readDockerfile();
const runtime = docker.stages.at(-1)!;
const instr = (name: string) => runtime.lines.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1));
const execForm = (name: string): string[] => {
  const all = instr(name);
  expect(all, `one ${name} in the runtime stage`).toHaveLength(1);
  return JSON.parse(all[0]!.replace(/^CMD /, '')) as string[];
};
/** `ENV A=1 B=2` lines of the runtime stage. */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const l of instr('ENV')) for (const m of l.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]!] = m[2]!.replace(/^"|"$/g, '');
  return env;
}

describe('Dockerfile', () => {
  it('is multi-stage on a pinned Node 24 slim base, the same Node as the `node` package', () => {
    expect(docker.stages.length).toBeGreaterThanOrEqual(2);
    for (const s of docker.stages) expect(s.from).toMatch(/^node:24\.\d+\.\d+-bookworm-slim(@sha256:[0-9a-f]{64})?( AS \w+)?$/);
    expect(runtime.from).toContain(`node:${pkg.dependencies.node}-`);
    // The build stage compiles with the dev dependencies; the runtime stage installs production ones only.
    expect(docker.stages[0]!.lines.some((l) => /^RUN npm ci\b/.test(l) && !l.includes('--omit=dev'))).toBe(true);
    expect(docker.stages[0]!.lines).toContain('RUN node scripts/build.mjs');
    expect(instr('RUN').some((l) => /^npm ci --omit=dev\b/.test(l))).toBe(true);
    expect(instr('COPY')).toContain('--from=build /app/dist ./dist');
  });

  it('runs as a non-root user, node under an init, with a readiness HEALTHCHECK, HOST=0.0.0.0 and both ports', () => {
    const users = instr('USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
    expect(runtime.lines.findIndex((l) => l.startsWith('USER '))).toBeLessThan(runtime.lines.findIndex((l) => l.startsWith('CMD ')));
    expect(execForm('ENTRYPOINT')).toEqual(['/usr/bin/tini', '--']);
    expect(execForm('CMD')[0]).toBe('node');
    expect(execForm('CMD').join(' ')).not.toMatch(/tsx|\.ts\b/);
    const hc = instr('HEALTHCHECK');
    expect(hc).toHaveLength(1);
    expect(hc[0]).toMatch(/ CMD \["node", "-e", .*\/api\/v1\/ready/);
    expect(imageEnv()).toMatchObject({ HOST: '0.0.0.0', PORT: '8080', GRPC_PORT: '8081' });
    expect(instr('EXPOSE')).toEqual(['8080 8081']);
  });

  it('CMD runs what `npm start` execs after its build check', () => {
    const cmd = execForm('CMD');
    expect(pkg.scripts.start).toMatch(/^node scripts\/build\.mjs --if-stale --no-check && exec /);
    expect(pkg.scripts.start!.split(' && exec ')[1]).toBe(cmd.join(' '));
  });
});

/** The HEALTHCHECK's own command, run as the container runtime would (exit 0 = healthy). */
function healthcheck(env: Record<string, string>): number | null {
  const argv = JSON.parse(instr('HEALTHCHECK')[0]!.replace(/^.* CMD /, '')) as string[];
  return spawnSync(argv[0] === 'node' ? process.execPath : argv[0]!, argv.slice(1), { env: { ...process.env, ...env }, timeout: 10_000 }).status;
}

/** The CLI as an operator runs it (bin/fluxdesk.js, on the build while it is current). */
function cli(env: Record<string, string>, ...args: string[]): any {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/fluxdesk.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`fluxdesk ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

interface Container {
  proc: ChildProcess;
  base: string;
  env: Record<string, string>;
  log: () => string;
  exited: Promise<number | null>;
}

/** Starts the Dockerfile's CMD in the project directory (the image's WORKDIR) with the image's ENV. */
async function startCmd(extra: Record<string, string>): Promise<Container> {
  const [port, grpcPort] = [await freePort(), await freePort()];
  const [bin, ...args] = execForm('CMD');
  expect(bin).toBe('node');
  // The image's ENV over a minimal environment (no inherited DATABASE_URL and the like).
  const env = { PATH: process.env.PATH ?? '', ...imageEnv(), PORT: String(port), GRPC_PORT: String(grpcPort), LOG_LEVEL: 'info', ...extra };
  let out = '';
  const proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    // Health answers as soon as the main listener does; the start is over when the ready line is logged.
    if (
      (await fetch(`${base}/api/v1/health`).then(
        (r) => r.status,
        () => 0,
      )) === 200 &&
      out.includes(' ready on ')
    )
      break;
    if (proc.exitCode !== null || i > 300) throw new Error(`the CMD did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, base, env, log: () => out, exited };
}

async function exercise(c: Container): Promise<void> {
  // Liveness answers with package.json's version: the build finds it from dist/src/main.js.
  const health = await fetch(`${c.base}/api/v1/health`);
  expect(await health.json()).toMatchObject({ ok: true, version: pkg.version });
  expect((await fetch(`${c.base}/api/v1/ready`)).status).toBe(200);
  expect(healthcheck(c.env)).toBe(0);

  // A served text read from disk next to the compiled module (copied by the build).
  const protocol = await fetch(`${c.base}/api/internal-os/integrations/protocol`);
  expect(protocol.status).toBe(200);
  expect(await protocol.text()).toBe(protocolText('inbound-protocol.md'));

  const email = uniqueEmail('build');
  cli(c.env, 'user', 'create', '--email', email, '--name', 'Build Check');
  const { token } = cli(c.env, 'token', 'create', '--email', email, '--label', 'build', '--daily-limit', '50') as { token: string };
  const ev = {
    spec_version: '2',
    event_id: `build-${Date.now()}`,
    event_type: 'personal.build.checked',
    severity: 'info',
    title: 'Production build',
    occurred_at: new Date(Date.now() - 1000).toISOString(),
  };
  const r = await fetch(`${c.base}/api/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(ev),
  });
  const body = (await r.json()) as Record<string, unknown>;
  expect(r.status, JSON.stringify(body)).toBe(202);
  expect(body).toMatchObject({ eventType: ev.event_type, severity: 'info', title: ev.title });
  expect(body.deliveryId).toMatch(/^[0-9a-f-]{36}$/);

  c.proc.kill('SIGTERM');
  expect(await c.exited).toBe(0);
  expect(c.log()).toContain('shutting down');
  expect(healthcheck(c.env)).toBe(1);
}

describe('the Dockerfile CMD on the build', () => {
  let db: Awaited<ReturnType<typeof createDatabase>> | undefined;
  let dataDir: string | undefined;
  const started: Container[] = [];
  beforeAll(() => {
    // `npm run build` unless dist/ is current already (CI builds it in an earlier step).
    const r = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(path.join(ROOT, 'dist/src/main.js'))).toBe(true);
  }, 180_000);
  afterAll(async () => {
    for (const c of started) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('with PostgreSQL and Redis (the compose app): ready, publishes, exits 0 on SIGTERM', async () => {
    db = await createDatabase();
    const c = await startCmd({ DATABASE_URL: db.url, REDIS_URL, WORKER: 'off' });
    started.push(c);
    expect(c.log()).toMatch(/"database":"postgresql","redis":"redis"/);
    await exercise(c);
  }, 60_000);

  it('embedded (a bare docker run, DATA_DIR like the image’s /data): ready, publishes, exits 0 on SIGTERM', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-image-'));
    const c = await startCmd({ DATA_DIR: dataDir });
    started.push(c);
    expect(c.log()).toContain(`"database":"embedded (${dataDir})"`);
    await exercise(c);
  }, 60_000);
});

describe('`npm start` builds first when dist/ is missing or stale', () => {
  // A scratch project with this repository's build script, tsconfigs, start script and
  // node_modules, and a two-file src/: cheap to compile, and the real dist/ is left alone.
  let dir: string;
  const npmStart = () => spawnSync('npm', ['start', '--silent'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  const write = (file: string, text: string, ageS = 0) => {
    writeFileSync(path.join(dir, file), text);
    const t = new Date(Date.now() - ageS * 1000);
    utimesSync(path.join(dir, file), t, t);
  };
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-buildfix-'));
    mkdirSync(path.join(dir, 'src'));
    cpSync(path.join(ROOT, 'scripts'), path.join(dir, 'scripts'), { recursive: true });
    for (const f of ['tsconfig.json', 'tsconfig.build.json']) cpSync(path.join(ROOT, f), path.join(dir, f));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    // The real start script, with a main that prints instead of serving.
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'build-fixture', private: true, type: 'module', scripts: { start: pkg.scripts.start } }),
    );
    write(
      'src/main.ts',
      `import { readFileSync } from 'node:fs';\nconst v: string = 'one';\nconsole.log(v, readFileSync(new URL('./note.txt', import.meta.url), 'utf8').trim());\n`,
      60,
    );
    write('src/note.txt', 'asset', 60);
    write('src/gone.ts', 'export const gone = 1;\n', 60);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds a missing dist/, reuses a current one, rebuilds after an edit or a deletion, one build at a time, refuses a type error', async () => {
    let r = npmStart();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('one asset');
    expect(r.stderr).toContain('compiling src/ and gen/');
    expect(existsSync(path.join(dir, 'dist/src/gone.js'))).toBe(true);

    r = npmStart();
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('one asset');
    expect(r.stderr).not.toContain('compiling');

    // An edit (same size, only the mtime and content differ), a deleted file, and the temporary
    // directory of a build that was killed (cleaned up).
    write('src/main.ts', readFileSync(path.join(dir, 'src/main.ts'), 'utf8').replace("'one'", "'two'"));
    rmSync(path.join(dir, 'src/gone.ts'));
    mkdirSync(path.join(dir, `dist.tmp-${spawnSync('true').pid}`));
    r = npmStart();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('dist/ is out of date');
    expect(r.stdout.trim()).toBe('two asset');
    expect(existsSync(path.join(dir, 'dist/src/gone.js'))).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith('dist.'))).toEqual([]);

    // Two starts at once after an edit: one builds, the other waits for it and finds dist/ current.
    write('src/note.txt', 'asset, edited');
    const both = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<{ code: number | null; err: string }>((resolve) => {
            const p = spawn(process.execPath, ['scripts/build.mjs', '--if-stale', '--no-check'], { cwd: dir });
            let err = '';
            p.stderr.on('data', (c) => (err += c));
            p.once('exit', (code) => resolve({ code, err }));
          }),
      ),
    );
    expect(both.map((b) => b.code)).toEqual([0, 0]);
    expect(both.filter((b) => b.err.includes('compiling'))).toHaveLength(1);
    expect(readFileSync(path.join(dir, 'dist/src/note.txt'), 'utf8')).toBe('asset, edited');

    // `npm run build` type-checks: a type error fails it and leaves the previous dist/ in place.
    write('src/main.ts', `const v: number = 'three';\nconsole.log(v);\n`);
    const b = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(b.status).toBe(1);
    expect(b.stderr).toMatch(/TS2322/);
    expect(b.stderr).toContain('dist/ left as it was');
    expect(readFileSync(path.join(dir, 'dist/src/main.js'), 'utf8')).toContain("'two'");
    expect(readdirSync(dir).filter((n) => n.startsWith('dist.'))).toEqual([]);
  }, 60_000);
});
