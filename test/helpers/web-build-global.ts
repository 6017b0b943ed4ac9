// vitest globalSetup: the web app's static assets are built before any end-to-end test loads them
// (`node scripts/build.mjs --web-only --if-stale`: nothing to do when the build is current). The
// outcome is handed to the test files as `webBuild` ('ok' or the build's error text) rather than
// thrown here, so a broken web build fails the browser tests (test/helpers/browser.ts) and not
// every unit and integration test of the run. A run without this setup (a config that does not
// list it) still works: browser.ts then runs the same build itself, once per test file.
import { spawnSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** 'ok', or why the web build failed. */
    webBuild: string;
  }
}

/** Runs the web build (if stale); 'ok' or the failure text. */
export function buildWebAssets(): string {
  const started = Date.now();
  const r = spawnSync(process.execPath, ['scripts/build.mjs', '--web-only', '--if-stale'], { cwd: process.cwd(), encoding: 'utf8', timeout: 180_000 });
  if (r.error) return `web build could not run: ${r.error.message}`;
  if (r.status !== 0) return `web build failed (node scripts/build.mjs --web-only --if-stale, exit ${r.status ?? r.signal}):\n${r.stderr}${r.stdout}`.trim();
  const took = Date.now() - started;
  if (took > 1000) process.stderr.write(`web build: ${took} ms\n`);
  return 'ok';
}

export default function setup(project: TestProject): void {
  project.provide('webBuild', buildWebAssets());
}
