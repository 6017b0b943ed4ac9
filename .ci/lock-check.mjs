// CI: after `npm install`, package.json and package-lock.json must be what was committed (a lock
// that was not committed after a dependency change fails here). One change is tolerated, with a
// note: entries npm added for optional packages of OTHER platforms (os/cpu that do not match this
// machine). npm records those when the registry mirror starts serving them (it did for
// @bufbuild/buf's darwin/win32/armv7 builds, and the old exact check failed a landing for it);
// they change nothing that is installed here. Anything else (a changed, removed or matching
// package, or another top-level field) fails.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const git = (...args) => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 256 << 20 });

const problems = [];
if (git('status', '--porcelain', '--', 'package.json').trim() !== '') problems.push('package.json was changed by npm install');

const committed = JSON.parse(git('show', 'HEAD:package-lock.json'));
const current = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

for (const key of new Set([...Object.keys(committed), ...Object.keys(current)])) {
  if (key !== 'packages' && !same(committed[key], current[key])) problems.push(`top-level field "${key}" differs`);
}

const forThisMachine = (entry) => (!entry.os || entry.os.includes(process.platform)) && (!entry.cpu || entry.cpu.includes(process.arch));

const otherPlatforms = [];
const before = committed.packages ?? {};
const after = current.packages ?? {};
for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
  const was = before[name];
  const is = after[name];
  if (same(was, is)) continue;
  if (was === undefined && is.optional === true && (is.os || is.cpu) && !forThisMachine(is)) otherPlatforms.push(name);
  else problems.push(`${name || '(root)'}: ${was === undefined ? 'added' : is === undefined ? 'removed' : 'changed'}`);
}

if (otherPlatforms.length > 0) {
  console.log(`note: npm recorded ${otherPlatforms.length} optional package(s) for other platforms that the registry now serves:`);
  for (const name of otherPlatforms) console.log(`  ${name}`);
  console.log('  (nothing installed here changes; commit the updated lock when convenient)');
}
if (problems.length > 0) {
  for (const p of problems) console.error(`  ${p}`);
  console.error('package-lock.json is not in sync with package.json: run npm install and commit the lock');
  process.exit(1);
}
console.log('package-lock.json: in sync');
