// Whether dist/ (the compiled build) matches the sources it was built from. Shared by
// scripts/build.mjs (`npm run build`, `npm start`) and bin/fluxdesk.js (the CLI), so neither
// ever runs an out-of-date build. Plain JavaScript: it runs before anything is compiled.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Compiled (and their non-TypeScript assets copied) into dist/ with the same layout. */
export const SOURCE_DIRS = ['src', 'gen'];
/** Files whose change changes the output. */
const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];
export const OUT_DIR = 'dist';
export const STAMP_FILE = '.build-stamp';
/** The service's entry point inside the build. */
export const MAIN_JS = 'dist/src/main.js';

function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(p, out);
    else if (entry.isFile()) out.push(p);
  }
}

/**
 * A digest of every input's path, size and mtime: any edit, added or deleted file changes it.
 * Stat only (no reads), so the up-to-date check of `npm start` stays a few milliseconds.
 * null when there are no sources (a deployed image ships dist/ alone).
 */
export function sourceFingerprint(root) {
  const files = [];
  for (const dir of SOURCE_DIRS) if (existsSync(path.join(root, dir))) walk(path.join(root, dir), files);
  if (files.length === 0) return null;
  for (const f of INPUT_FILES) if (existsSync(path.join(root, f))) files.push(path.join(root, f));
  files.sort();
  const hash = createHash('sha256');
  for (const f of files) {
    const s = statSync(f);
    hash.update(`${path.relative(root, f)}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

export function readStamp(root) {
  try {
    return JSON.parse(readFileSync(path.join(root, OUT_DIR, STAMP_FILE), 'utf8'));
  } catch {
    return null;
  }
}

/** True when dist/ exists and was built from the current sources (or no sources are present). */
export function buildIsCurrent(root) {
  const stamp = readStamp(root);
  if (!stamp || !existsSync(path.join(root, MAIN_JS))) return false;
  const now = sourceFingerprint(root);
  return now === null || now === stamp.fingerprint;
}
