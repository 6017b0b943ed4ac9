// The production build: src/ and gen/ compiled by tsc (tsconfig.build.json) into dist/, with every
// non-TypeScript file under them (the served protocol texts, ...) copied alongside, so code that
// reads `new URL('./x', import.meta.url)` finds its file in both layouts.
//
//   node scripts/build.mjs                      `npm run build`: type-checked; fails on a type error
//   node scripts/build.mjs --if-stale --no-check  `npm start`: nothing to do when dist/ is current,
//                                                else transpile only (what tsx did), ~3x faster
//
// The output is built in dist.tmp-<pid> and swapped in whole: an interrupted or failed build never
// leaves a half-written dist/, and a process started from the previous one keeps its files.
// Concurrent builds (two `npm start`s) take turns on dist.lock; the second finds dist/ current.
import { spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildIsCurrent, OUT_DIR, SOURCE_DIRS, sourceFingerprint, STAMP_FILE } from './build-state.mjs';

const root = process.cwd();
const args = new Set(process.argv.slice(2));
for (const a of args) {
  if (!['--if-stale', '--no-check'].includes(a)) {
    say(`unknown option ${a} (use --if-stale, --no-check)`);
    process.exit(2);
  }
}
const ifStale = args.has('--if-stale');
const check = !args.has('--no-check');

function say(msg) {
  // stderr: `npm start` prints the service's JSON log lines on stdout.
  process.stderr.write(`fluxdesk build: ${msg}\n`);
}
class BuildFailed extends Error {}
function fail(msg) {
  throw new BuildFailed(msg);
}

if (ifStale && buildIsCurrent(root)) process.exit(0);
if (!existsSync(path.join(root, 'src'))) {
  say(`no src/ under ${root}: run from the project directory`);
  process.exit(1);
}

const lockPath = path.join(root, `${OUT_DIR}.lock`);
function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}
function lock() {
  for (let waited = 0; ; waited++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
    let owner = 0;
    try {
      owner = Number(readFileSync(lockPath, 'utf8').trim());
    } catch {
      continue; // released meanwhile
    }
    // A lock left by a killed build (or still empty, just created) is taken over after a grace period.
    if (!(owner > 0 && pidAlive(owner)) && waited > 5) rmSync(lockPath, { force: true });
    else {
      if (waited === 0) say(`waiting for the build of process ${owner || '?'}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

lock();
const tmp = path.join(root, `${OUT_DIR}.tmp-${process.pid}`);
try {
  // Another process may have built while this one waited for the lock.
  if (!(ifStale && buildIsCurrent(root))) build();
} catch (e) {
  say(e instanceof BuildFailed ? e.message : String(e?.stack ?? e));
  process.exitCode = 1;
} finally {
  rmSync(tmp, { recursive: true, force: true });
  rmSync(lockPath, { force: true });
}

function build() {
  const started = Date.now();
  // Leftovers of a build that was killed (its pid is gone).
  for (const name of readdirSync(root)) {
    const m = new RegExp(`^${OUT_DIR}\\.(tmp|old)-(\\d+)$`).exec(name);
    if (m && !pidAlive(Number(m[2]))) rmSync(path.join(root, name), { recursive: true, force: true });
  }
  // Taken before compiling: a file edited during the build makes the next check rebuild.
  const fingerprint = sourceFingerprint(root);
  let tsc;
  try {
    tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    fail('typescript is not installed (a devDependency): run `npm install` here, or build elsewhere and ship dist/');
  }
  rmSync(tmp, { recursive: true, force: true });
  say(`${existsSync(path.join(root, OUT_DIR)) ? 'dist/ is out of date; ' : ''}compiling src/ and gen/${check ? ' (type-checked)' : ' (no type check)'}`);
  const tscArgs = [tsc, '-p', 'tsconfig.build.json', '--outDir', tmp, '--pretty', 'false'];
  if (!check) tscArgs.push('--noCheck');
  const r = spawnSync(process.execPath, tscArgs, { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) fail(`tsc failed (exit ${r.status ?? r.signal}); dist/ left as it was`);
  // Non-TypeScript files next to the code that reads them.
  for (const dir of SOURCE_DIRS) {
    if (!existsSync(path.join(root, dir))) continue;
    cpSync(path.join(root, dir), path.join(tmp, dir), { recursive: true, filter: (src) => !src.endsWith('.ts') });
  }
  writeFileSync(path.join(tmp, STAMP_FILE), `${JSON.stringify({ fingerprint, checked: check, builtAt: new Date().toISOString() })}\n`);
  const old = path.join(root, `${OUT_DIR}.old-${process.pid}`);
  if (existsSync(path.join(root, OUT_DIR))) renameSync(path.join(root, OUT_DIR), old);
  renameSync(tmp, path.join(root, OUT_DIR));
  rmSync(old, { recursive: true, force: true });
  const files = readdirSync(path.join(root, OUT_DIR), { recursive: true }).length;
  say(`dist/ ready (${files} entries) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
