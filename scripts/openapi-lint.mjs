// npm run lint:openapi: lints the OpenAPI document the service serves (GET /api/v1/openapi.json)
// with Redocly (redocly.yaml, extends recommended) and Spectral (.spectral.yaml, spectral:oas).
// The document is built by importing its builder through tsx (no server, no database), written to
// a temporary file, and both linters must report 0 errors and 0 warnings (exit 1 otherwise).
//
//   node scripts/openapi-lint.mjs [--keep]     --keep: leave the temporary document and name it
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const say = (msg) => process.stderr.write(`openapi-lint: ${msg}\n`);

// The same call the server makes (rest-v1/plugin.ts), for the base URL the build of the document
// does not depend on otherwise. /metrics is documented (METRICS_PORT unset, the default).
const { buildOpenApi } = await tsImport('../src/transports/rest-v1/openapi.ts', import.meta.url);
const doc = buildOpenApi('http://127.0.0.1:8080', { metrics: true });

const dir = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-openapi-'));
const file = path.join(dir, 'openapi.json');
writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);

let failed = false;
try {
  // Redocly fails only on errors: warnings are counted from its JSON report.
  const redocly = spawnSync(bin('redocly'), ['lint', file, '--config', path.join(root, 'redocly.yaml'), '--format', 'json', '--max-problems', '1000'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    // No usage telemetry or update check from CI machines (only the npm registry is reachable).
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  let report;
  try {
    report = JSON.parse(redocly.stdout);
  } catch {
    say(`redocly did not answer with its JSON report (exit ${redocly.status}):\n${redocly.stderr}${redocly.stdout}`);
    process.exit(1);
  }
  const { errors = 0, warnings = 0 } = report.totals ?? {};
  for (const p of report.problems ?? []) say(`redocly ${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer ?? ''}: ${p.message}`);
  say(`redocly: ${errors} errors, ${warnings} warnings`);
  if (errors > 0 || warnings > 0 || redocly.status !== 0) failed = true;

  const spectral = spawnSync(bin('spectral'), ['lint', file, '--ruleset', path.join(root, '.spectral.yaml'), '--fail-severity', 'warn'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  process.stderr.write(spectral.stdout);
  if (spectral.status !== 0) {
    process.stderr.write(spectral.stderr);
    failed = true;
  }
  say(`spectral: ${spectral.status === 0 ? 'clean' : 'problems above'}`);
} finally {
  if (keep) say(`document kept at ${file}`);
  else rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
