// The production build (README "Production build and container"): src/ and gen/ compiled by tsc into
// dist/ with their non-TypeScript files copied alongside (so `new URL('./x', import.meta.url)` finds
// its file in both layouts), and the web app built by Vite into dist/web. Each is built aside and
// swapped in whole; concurrent builds take turns on dist.lock.
//   node scripts/build.mjs                         `npm run build`: type-checked; fails on a type error
//   node scripts/build.mjs --if-stale --no-check   `npm start`: nothing when dist/ is current, else transpile only
//   node scripts/build.mjs --web-only [--if-stale] only the web app (tests that serve it)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildIsCurrent, OUT_DIR, SOURCE_DIRS, sourceFingerprint, STAMP_FILE } from './build-state.mjs';

const root = process.cwd();
const args = new Set(process.argv.slice(2));
for (const a of args) {
  if (!['--if-stale', '--no-check', '--web-only'].includes(a)) {
    say(`unknown option ${a} (use --if-stale, --no-check, --web-only)`);
    process.exit(2);
  }
}
const ifStale = args.has('--if-stale');
const check = !args.has('--no-check');
const webOnly = args.has('--web-only');

// The web app: sources, output (inside dist/) and what its freshness depends on.
const WEB_SRC = 'web';
const WEB_OUT = path.join(OUT_DIR, 'web');
const WEB_INPUTS = [WEB_SRC, 'gen'];
// The modules of src/ the web app imports: the event limits its forms state, the inbox's views,
// limits and snooze presets.
const WEB_INPUT_FILES = ['scripts/build.mjs', 'package-lock.json', 'src/domain/events/event.limits.ts', 'src/domain/inbox/inbox.limits.ts'];

function walkFiles(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) walkFiles(p, out);
    else if (entry.isFile()) out.push(p);
  }
}
/** Path, size and mtime of every input of the web build (stat only, like sourceFingerprint). */
function webFingerprint(root) {
  const files = [];
  for (const dir of WEB_INPUTS) if (existsSync(path.join(root, dir))) walkFiles(path.join(root, dir), files);
  for (const f of WEB_INPUT_FILES) if (existsSync(path.join(root, f))) files.push(path.join(root, f));
  files.sort();
  const hash = createHash('sha256');
  for (const f of files) {
    const st = statSync(f);
    hash.update(`${path.relative(root, f)}\0${st.size}\0${st.mtimeMs}\n`);
  }
  return hash.digest('hex');
}
/** True when there is no web app to build (no web/: a scratch project, a deployed image) or dist/web matches its sources. */
function webIsCurrent(root) {
  if (!existsSync(path.join(root, WEB_SRC, 'index.html'))) return true;
  try {
    const stamp = JSON.parse(readFileSync(path.join(root, WEB_OUT, STAMP_FILE), 'utf8'));
    return existsSync(path.join(root, WEB_OUT, 'index.html')) && stamp.fingerprint === webFingerprint(root);
  } catch {
    return false;
  }
}

function say(msg) {
  // stderr: `npm start` prints the service's JSON log lines on stdout.
  process.stderr.write(`fluxdesk build: ${msg}\n`);
}
class BuildFailed extends Error {}
function fail(msg) {
  throw new BuildFailed(msg);
}

const serverCurrent = () => webOnly || (ifStale && buildIsCurrent(root));
const webCurrent = () => ifStale && webIsCurrent(root);
if (serverCurrent() && webCurrent()) process.exit(0);
if (!existsSync(path.join(root, webOnly ? WEB_SRC : 'src'))) {
  say(`no ${webOnly ? WEB_SRC : 'src'}/ under ${root}: run from the project directory`);
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
  if (!serverCurrent()) build();
  if (!webCurrent() && existsSync(path.join(root, WEB_SRC, 'index.html'))) await buildWeb();
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
    const m = new RegExp(`^${OUT_DIR}\\.(tmp|old|web-tmp|web-old)-(\\d+)$`).exec(name);
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
  // The web app is built separately (buildWeb): the current one moves along into the new dist/.
  if (existsSync(path.join(root, WEB_OUT))) cpSync(path.join(root, WEB_OUT), path.join(tmp, 'web'), { recursive: true });
  const old = path.join(root, `${OUT_DIR}.old-${process.pid}`);
  if (existsSync(path.join(root, OUT_DIR))) renameSync(path.join(root, OUT_DIR), old);
  renameSync(tmp, path.join(root, OUT_DIR));
  rmSync(old, { recursive: true, force: true });
  const files = readdirSync(path.join(root, OUT_DIR), { recursive: true }).length;
  say(`dist/ ready (${files} entries) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Builds web/ with Vite into dist.web-tmp-<pid>, then swaps it in as dist/web (a running server keeps serving a whole app). */
async function buildWeb() {
  const started = Date.now();
  for (const name of readdirSync(root)) {
    const m = new RegExp(`^${OUT_DIR}\\.(web-tmp|web-old)-(\\d+)$`).exec(name);
    if (m && !pidAlive(Number(m[2]))) rmSync(path.join(root, name), { recursive: true, force: true });
  }
  const fingerprint = webFingerprint(root);
  const require = createRequire(path.join(root, 'package.json'));
  if (check) {
    say('type-checking web/ (tsc -p web)');
    const r = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', WEB_SRC, '--pretty', 'false'], { cwd: root, stdio: ['ignore', 2, 2] });
    if (r.status !== 0) fail(`tsc -p web failed (exit ${r.status ?? r.signal}); dist/web left as it was`);
  }
  say(`${existsSync(path.join(root, WEB_OUT)) ? 'dist/web is out of date; ' : ''}building the web app (vite)`);
  let vite;
  try {
    vite = await import(require.resolve('vite'));
  } catch {
    fail('vite is not installed: run `npm install` here');
  }
  const webTmp = path.join(root, `${OUT_DIR}.web-tmp-${process.pid}`);
  rmSync(webTmp, { recursive: true, force: true });
  try {
    await vite.build({
      configFile: path.join(root, WEB_SRC, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: webTmp, emptyOutDir: true },
    });
  } catch (e) {
    rmSync(webTmp, { recursive: true, force: true });
    fail(`vite build failed; dist/web left as it was\n${e?.message ?? e}`);
  }
  const kb = (inboxRouteGzip(webTmp) / 1024).toFixed(1);
  writeFileSync(
    path.join(webTmp, STAMP_FILE),
    `${JSON.stringify({ fingerprint, builtAt: new Date().toISOString(), inboxRouteJsGzipBytes: inboxRouteGzip(webTmp) })}\n`,
  );
  mkdirSync(path.join(root, OUT_DIR), { recursive: true });
  const old = path.join(root, `${OUT_DIR}.web-old-${process.pid}`);
  if (existsSync(path.join(root, WEB_OUT))) renameSync(path.join(root, WEB_OUT), old);
  renameSync(webTmp, path.join(root, WEB_OUT));
  rmSync(old, { recursive: true, force: true });
  say(`dist/web ready in ${((Date.now() - started) / 1000).toFixed(1)} s (inbox route: ${kb} KB of JavaScript gzipped)`);
}

/** Gzipped bytes of the JavaScript index.html loads (module scripts and their preloads): the inbox route's budget. */
function inboxRouteGzip(dir) {
  const html = readFileSync(path.join(dir, 'index.html'), 'utf8');
  let total = 0;
  for (const m of html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/([^"]+\.js)"/g)) {
    total += gzipSync(readFileSync(path.join(dir, m[1]))).length;
  }
  return total;
}
