// `buf breaking` of the proto module (buf.yaml, rules in its `breaking` section) against a baseline
// image, as findings. Line numbers are left out of the ids so an exception survives unrelated edits.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Finding } from './api-compat.exceptions.js';

export interface BufOptions {
  /** Directory holding buf.yaml (the workspace). */
  cwd: string;
  /** Baseline: a buf image (`.binpb`) or any buf input (`.git#tag=v1.2.3`). */
  against: string;
  /** The buf binary; default node_modules/.bin/buf under cwd. */
  buf?: string;
}

export function bufBreaking(o: BufOptions): Finding[] {
  const buf = o.buf ?? path.join(o.cwd, 'node_modules', '.bin', 'buf');
  const r = spawnSync(buf, ['breaking', '--against', o.against, '--error-format', 'json'], { cwd: o.cwd, encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw new Error(`cannot run ${buf}: ${r.error.message}`);
  // buf exits 100 when it found breaking changes; any other non-zero status is a failure to compare.
  if (r.status !== 0 && r.status !== 100) throw new Error(`buf breaking failed (exit ${r.status}):\n${r.stderr || r.stdout}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const a = JSON.parse(l) as { path?: string; type: string; message: string };
      const where = a.path ?? '(module)';
      return { check: 'proto', rule: a.type, where, message: a.message, id: `proto: ${a.type} at ${where}: ${a.message}` } satisfies Finding;
    });
}

/** Writes the module's image (no source info: breaking rules do not need it) to `out`. */
export function bufBuildImage(cwd: string, out: string, buf = path.join(cwd, 'node_modules', '.bin', 'buf')): void {
  const r = spawnSync(buf, ['build', '--exclude-source-info', '-o', out], { cwd, encoding: 'utf8', timeout: 120_000 });
  if (r.error || r.status !== 0) throw new Error(`buf build failed: ${r.error?.message ?? r.stderr}`);
}
