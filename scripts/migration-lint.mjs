#!/usr/bin/env node
// Migration rules a smoke cannot see (docs/migrations.md): reads the migrations added since the
// release baseline (api/baseline/release.json) and the released ones, and reports
//   - error: a change that can break the previous release while both run on one schema (a drop,
//     a rename, a type change, a new NOT NULL without a default, a dropped constraint), an edit
//     of a migration the baseline already shipped, or a migration file index.ts does not list.
//     Fails unless api/migration-exceptions.json names the finding (why, who, when), like
//     api/breaking-exceptions.json for the API.
//   - warning: a lock or speed cost for the running previous release (an index built on an existing
//     table, a constraint validated inside the migration's transaction, no lock_timeout, a dropped
//     index, a replaced function, rows rewritten in the migration). Printed, not failing: the
//     release review reads them (they vanish when the baseline moves).
// A text scan of the migration files (comments removed), not a SQL parser: it errs on the side of
// reporting. Usage: node scripts/migration-lint.mjs   (from anywhere; needs git). Exit 1 on
// an error without an exception or a malformed exceptions file.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DIR = 'src/infra/db/migrations';
const EXCEPTIONS = 'api/migration-exceptions.json';

/** TypeScript text without comments (line comments only where `//` starts the comment, not in a URL). */
export function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\w])\/\/[^\n]*/g, '$1');
}

/** A released migration's text compared without comments, whitespace and trailing commas. */
export function normalized(text) {
  return stripComments(text)
    .replace(/\s+/g, '')
    .replace(/,([)\]}])/g, '$1');
}

/** A quoted or bare identifier (optionally schema-qualified), captured. */
const ID = `"?([\\w.]+)"?`;
/** [rule, level, regex, what]: the regex's first group names the object. */
const RULES = [
  ['drop-table', 'error', new RegExp(`\\bdrop\\s+table\\s+(?:if\\s+exists\\s+)?${ID}`, 'gi'), 'drops a table the previous release may read or write'],
  ['drop-column', 'error', new RegExp(`\\bdrop\\s+column\\s+(?:if\\s+exists\\s+)?${ID}`, 'gi'), 'drops a column the previous release may read or write'],
  [
    'rename',
    'error',
    new RegExp(`\\brename\\s+(?:column\\s+|constraint\\s+)?${ID}\\s+to\\b`, 'gi'),
    'renames a column or constraint the previous release names',
  ],
  [
    'rename-table',
    'error',
    new RegExp(`\\balter\\s+table\\s+(?:if\\s+exists\\s+)?${ID}\\s+rename\\s+to\\b`, 'gi'),
    'renames a table the previous release names',
  ],
  [
    'column-type-change',
    'error',
    new RegExp(`\\balter\\s+column\\s+${ID}\\s+(?:set\\s+data\\s+)?type\\b`, 'gi'),
    'changes a column type (a rewrite under an exclusive lock; the previous release may write values the new type refuses)',
  ],
  [
    'set-not-null',
    'error',
    new RegExp(`\\balter\\s+column\\s+${ID}\\s+set\\s+not\\s+null`, 'gi'),
    'makes a column NOT NULL: the previous release may insert rows without it',
  ],
  [
    'drop-constraint',
    'error',
    new RegExp(`\\bdrop\\s+constraint\\s+(?:if\\s+exists\\s+)?${ID}`, 'gi'),
    'drops a constraint the previous release may rely on (ON CONFLICT, uniqueness)',
  ],
  [
    'drop-index',
    'warning',
    new RegExp(`\\bdrop\\s+index\\s+(?:concurrently\\s+)?(?:if\\s+exists\\s+)?${ID}`, 'gi'),
    'drops an index: the previous release may need it for speed',
  ],
  [
    'replace-function',
    'warning',
    new RegExp(`\\bcreate\\s+or\\s+replace\\s+function\\s+${ID}`, 'gi'),
    'replaces a function (a trigger) that the previous release runs too',
  ],
  [
    'rewrite-rows',
    'warning',
    new RegExp(`(?:^|[\`'"(;]\\s*)(?:update\\s+${ID}\\s+set|delete\\s+from\\s+${ID})`, 'gi'),
    'rewrites rows inside the migration: a backfill belongs in a resumable maintenance task',
  ],
  [
    'validate-in-transaction',
    'warning',
    new RegExp(`\\balter\\s+table\\s+${ID}\\s+validate\\s+constraint\\b`, 'gi'),
    'validates a constraint inside the migration transaction: the lock its ADD CONSTRAINT took is held through the scan',
  ],
];

/** Tables a migration creates (an index on them or a constraint on them costs nothing). */
function createdTables(text) {
  return new Set([...text.matchAll(new RegExp(`\\bcreate\\s+table\\s+(?:if\\s+not\\s+exists\\s+)?${ID}`, 'gi'))].map((m) => m[1].toLowerCase()));
}

/** Findings of one migration added since the baseline: {migration, rule, level, object, what, id}. */
export function lintMigration(name, source) {
  const text = stripComments(source);
  const created = createdTables(text);
  const findings = [];
  const add = (rule, level, object, what) => findings.push({ migration: name, rule, level, object, what, id: `${name}: ${rule} ${object}` });
  for (const [rule, level, re, what] of RULES) {
    for (const m of text.matchAll(re)) {
      const object = (m[1] ?? m[2] ?? '?').toLowerCase();
      if (rule === 'validate-in-transaction' && created.has(object)) continue;
      add(rule, level, object, what);
    }
  }
  // A new column NOT NULL without a default: the previous release's inserts do not name it.
  for (const m of text.matchAll(new RegExp(`\\balter\\s+table\\s+(?:if\\s+exists\\s+)?${ID}((?:[^\`;]|\\(\\d+,\\d+\\))*)`, 'gi'))) {
    const table = m[1].toLowerCase();
    for (const c of m[2].matchAll(new RegExp(`\\badd\\s+column\\s+(?:if\\s+not\\s+exists\\s+)?${ID}((?:\\([^)]*\\)|[^,(])*)`, 'gi'))) {
      const clause = c[2].toLowerCase();
      if (/\bnot\s+null\b/.test(clause) && !/\bdefault\b|\bgenerated\b/.test(clause)) {
        add(
          'not-null-without-default',
          'error',
          `${table}.${c[1].toLowerCase()}`,
          'adds a NOT NULL column without a default: the previous release inserts rows without it',
        );
      }
    }
  }
  // An index built on an existing table: a plain CREATE INDEX stops writes for the whole build, and
  // CONCURRENTLY cannot run in the migrator's transaction. Fine on a small table only.
  for (const m of text.matchAll(new RegExp(`\\bcreate\\s+(?:unique\\s+)?index\\s+(concurrently\\s+)?(?:if\\s+not\\s+exists\\s+)?${ID}\\s+on\\s+${ID}`, 'gi'))) {
    const table = m[3].toLowerCase();
    if (created.has(table)) continue;
    add(
      'index-on-existing-table',
      'warning',
      `${m[2].toLowerCase()} on ${table}`,
      'builds an index on an existing table inside the migration: writes to it wait for the build',
    );
  }
  // Locks on existing tables without a bound: the ALTER queues behind any long transaction and every
  // query of the previous release queues behind the ALTER.
  const altered = [...text.matchAll(new RegExp(`\\balter\\s+table\\s+(?:if\\s+exists\\s+)?${ID}`, 'gi'))]
    .map((m) => m[1].toLowerCase())
    .filter((t) => !created.has(t));
  if (altered.length > 0 && !/lock_timeout/i.test(text)) {
    add(
      'no-lock-timeout',
      'warning',
      [...new Set(altered)].join(','),
      'alters existing tables without a lock_timeout: a long transaction of a running release makes every query queue behind the ALTER',
    );
  }
  return findings;
}

function loadExceptions(file) {
  let doc;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${e.message}`);
  }
  const list = doc?.exceptions;
  if (!Array.isArray(list)) throw new Error(`${file}: expected an object with an "exceptions" array`);
  const problems = [];
  list.forEach((e, i) => {
    for (const f of ['change', 'why', 'who', 'when'])
      if (typeof e?.[f] !== 'string' || !e[f].trim()) problems.push(`exceptions[${i}].${f} must be a non-empty string`);
    if (typeof e?.when === 'string' && !/^\d{4}-\d{2}-\d{2}$/.test(e.when)) problems.push(`exceptions[${i}].when must be a date (YYYY-MM-DD)`);
  });
  if (problems.length) throw new Error(`${file}:\n  ${problems.join('\n  ')}`);
  return list;
}

function main() {
  // The repository the script lives in, wherever it is run from.
  process.chdir(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const release = JSON.parse(readFileSync('api/baseline/release.json', 'utf8'));
  const git = (...args) => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  try {
    git('cat-file', '-e', `${release.commit}^{commit}`);
  } catch {
    console.error(`migration lint: the baseline commit ${release.commit} (release ${release.version}) is not in this clone (shallow? git fetch --unshallow)`);
    process.exit(1);
  }
  const released = new Set(
    git('ls-tree', '--name-only', `${release.commit}:${DIR}`)
      .split('\n')
      .filter((n) => /^Migration\w+\.ts$/.test(n)),
  );
  const current = readdirSync(DIR).filter((n) => /^Migration\w+\.ts$/.test(n));
  const findings = [];
  for (const file of [...released].sort()) {
    const name = file.replace(/\.ts$/, '');
    if (!current.includes(file)) {
      findings.push({
        migration: name,
        rule: 'released-migration-removed',
        level: 'error',
        object: file,
        what: 'a released migration is gone',
        id: `${name}: released-migration-removed`,
      });
      continue;
    }
    if (normalized(git('show', `${release.commit}:${DIR}/${file}`)) !== normalized(readFileSync(path.join(DIR, file), 'utf8'))) {
      findings.push({
        migration: name,
        rule: 'released-migration-edited',
        level: 'error',
        object: file,
        what: 'a released migration changed (beyond comments and formatting): databases that ran it never see the change; write a new migration',
        id: `${name}: released-migration-edited`,
      });
    }
  }
  // The migrator runs only what index.ts lists (no globbing): a file missing there never runs.
  const index = readFileSync(path.join(DIR, 'index.ts'), 'utf8');
  for (const file of current) {
    const name = file.replace(/\.ts$/, '');
    if (!index.includes(`name: '${name}'`)) {
      findings.push({
        migration: name,
        rule: 'not-listed',
        level: 'error',
        object: file,
        what: `not in ${DIR}/index.ts: it never runs`,
        id: `${name}: not-listed`,
      });
    }
  }
  const added = current.filter((f) => !released.has(f)).sort();
  // Post-deploy migrations (index.ts POST_DEPLOY_MIGRATIONS) run once every node runs this
  // release: the previous release never meets them, so what breaks it is their purpose (a contract
  // step). Reported for the review, not failed; this release's own tests run on their schema.
  const postDeploy = new Set([...(/POST_DEPLOY_MIGRATIONS[^=]*=\s*new Set\(\[([^\]]*)\]/.exec(index)?.[1] ?? '').matchAll(/'(\w+)'/g)].map((m) => m[1]));
  for (const file of added) {
    const name = file.replace(/\.ts$/, '');
    const found = lintMigration(name, readFileSync(path.join(DIR, file), 'utf8'));
    findings.push(...(postDeploy.has(name) ? found.map((f) => (f.level === 'error' ? { ...f, level: 'post-deploy' } : f)) : found));
  }

  let exceptions;
  try {
    exceptions = loadExceptions(EXCEPTIONS);
  } catch (e) {
    console.error(`migration lint: ${e.message}`);
    process.exit(1);
  }
  const byId = new Map(exceptions.map((e) => [e.change.trim(), e]));
  const used = new Set();
  let errors = 0;
  console.log(`migration lint: ${added.length} migration(s) since release ${release.version} (${release.commit.slice(0, 7)}), rules in docs/migrations.md`);
  for (const f of findings) {
    const ex = byId.get(f.id);
    if (ex) used.add(ex);
    const tag = f.level === 'error' ? (ex ? 'excepted' : 'ERROR') : f.level === 'post-deploy' ? 'post-dep' : 'warning';
    if (f.level === 'error' && !ex) errors++;
    const note = ex ? ` (reviewed: ${EXCEPTIONS})` : f.level === 'post-deploy' ? ' (post-deploy: runs once no node of the previous release is left)' : '';
    console.log(`  ${tag.padEnd(8)} ${f.id}: ${f.what}${note}`);
  }
  for (const e of exceptions) if (!used.has(e)) console.log(`  note     ${EXCEPTIONS} entry "${e.change}" matches nothing: remove it`);
  if (errors > 0) {
    console.log(
      `migration lint: ${errors} error(s) (docs/migrations.md): expand now, contract one release later; or record a reviewed exception in ${EXCEPTIONS} (copy the id)`,
    );
    process.exit(1);
  }
  console.log(`migration lint: ok (${findings.filter((f) => f.level === 'warning').length} warning(s) for the release review)`);
}

// Run as a script (the unit test imports the functions only).
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
