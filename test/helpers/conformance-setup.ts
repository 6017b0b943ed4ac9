// vitest setupFiles: after each test file, the OpenAPI conformance violations its services produced
// (conformance-recorder.ts) fail the file (CONFORMANCE=strict, the default), or are handed to
// conformance-global.ts for the run's summary (CONFORMANCE=report).
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, inject } from 'vitest';
import { describeViolations } from './conformance.js';
import { conformanceMode, takeViolations } from './conformance-recorder.js';

// For the harness (conformance-recorder.ts), which must not import vitest itself.
process.env.FLUXDESK_CONFORMANCE_DIR = inject('conformanceDir');

// Registered before the test file's own hooks: with vitest's default 'stack' order it runs after
// them, i.e. after the file's harness has closed.
afterAll(() => {
  const mode = conformanceMode();
  const vs = takeViolations();
  if (mode === 'off' || vs.length === 0) return;
  const dir = inject('conformanceDir');
  const file = expect.getState().testPath ?? '(unknown file)';
  if (dir) appendFileSync(path.join(dir, `${process.pid}.jsonl`), `${vs.map((v) => JSON.stringify({ file, ...v })).join('\n')}\n`);
  if (mode === 'report') return;
  throw new Error(describeViolations(vs));
});
