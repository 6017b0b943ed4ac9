// `npm run fuzz`: the fuzz properties of test/fuzz with enough runs for >= 100,000 inputs in total
// (FUZZ_RUNS per target, default 560), recording every violation instead of stopping at the first
// (FUZZ_COLLECT), then the figures: inputs per surface, statuses seen, 5xx count, duration, seeds.
// FUZZ_SEED replays a run; extra arguments go to vitest (e.g. a single file).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Stats } from './fuzz-kit.js';

const runs = process.env.FUZZ_RUNS ?? '560';
const reportDir = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-fuzz-'));
const started = Date.now();
const files = process.argv.slice(2);
const vitest = spawnSync('npx', ['vitest', 'run', ...(files.length > 0 ? files : ['test/fuzz']), '--testTimeout=0', '--hookTimeout=120000'], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_RUNS: runs, FUZZ_COLLECT: '1', FUZZ_REPORT_DIR: reportDir },
});

const reports: Stats[] = readdirSync(reportDir).map((f) => JSON.parse(readFileSync(path.join(reportDir, f), 'utf8')));
rmSync(reportDir, { recursive: true, force: true });
const inputs: Record<string, number> = {};
const statuses: Record<string, Record<string, number>> = {};
const fivexx: Record<string, number> = {};
for (const r of reports) {
  for (const [s, n] of Object.entries(r.inputs)) inputs[s] = (inputs[s] ?? 0) + n;
  for (const [s, by] of Object.entries(r.statuses)) for (const [k, n] of Object.entries(by)) (statuses[s] ??= {})[k] = (statuses[s]![k] ?? 0) + n;
  for (const [s, n] of Object.entries(r.serverErrors)) fivexx[s] = (fivexx[s] ?? 0) + n;
}
const total = Object.values(inputs).reduce((a, b) => a + b, 0);
const total5xx = Object.values(fivexx).reduce((a, b) => a + b, 0);
const violations = reports.flatMap((r) => r.violations);
const out = [
  '',
  `fuzz figures: ${total} inputs in ${((Date.now() - started) / 1000).toFixed(0)} s, FUZZ_RUNS=${runs}, 5xx/internal answers: ${total5xx}, violations: ${violations.length}`,
  `seeds (FUZZ_SEED replays one file): ${reports.map((r) => `${r.file}=${r.seed} (${((r.durationMs ?? 0) / 1000).toFixed(0)} s)`).join(', ')}`,
  ...Object.keys(inputs)
    .sort()
    .map((s) => `  ${s.padEnd(26)} ${String(inputs[s]).padStart(7)} inputs  5xx ${fivexx[s] ?? 0}  statuses ${JSON.stringify(statuses[s])}`),
  ...violations.slice(0, 40).map((v) => `  VIOLATION ${v.surface} ${v.target} -> ${v.status}: ${v.reasons.join('; ')} | ${v.input.slice(0, 300)}`),
];
if (total < 100_000 && files.length === 0) out.push(`  note: fewer than 100,000 inputs; raise FUZZ_RUNS`);
console.log(out.join('\n'));
process.exit(vitest.status !== 0 || total5xx > 0 || violations.length > 0 ? 1 : 0);
