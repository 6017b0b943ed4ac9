#!/usr/bin/env node
// Launcher for the CLI. Runs the compiled build (dist/, `npm run build`) when it matches the
// sources (in an image that ships dist/ alone it always does), else the TypeScript through tsx:
// an out-of-date build must never answer for edited code. Node >= 22.17 (the `node` package).
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from '../scripts/build-state.mjs';

if (buildIsCurrent(fileURLToPath(new URL('..', import.meta.url)))) {
  await import('../dist/src/transports/cli/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/transports/cli/main.ts');
}
