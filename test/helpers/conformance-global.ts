// vitest globalSetup: a directory where each test file's OpenAPI conformance violations land
// (conformance-setup.ts) and compiled validators are shared between files (validators/), and at the end of the run one grouped list of them: which documented
// operation, status and mismatch, how many times, and in which files.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { formatViolation, type Violation } from './conformance.js';

declare module 'vitest' {
  export interface ProvidedContext {
    conformanceDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-conformance-'));
  project.provide('conformanceDir', dir);
  return () => {
    const groups = new Map<string, { count: number; files: Set<string> }>();
    for (const f of readdirSync(dir)) {
      if (!f.endsWith('.jsonl')) continue;
      for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) {
        if (!line) continue;
        const { file, ...v } = JSON.parse(line) as Violation & { file: string };
        const key = formatViolation(v);
        const g = groups.get(key) ?? { count: 0, files: new Set<string>() };
        g.count++;
        g.files.add(path.relative(process.cwd(), file));
        groups.set(key, g);
      }
    }
    rmSync(dir, { recursive: true, force: true });
    if (groups.size === 0) return;
    // Route-table findings first, response findings last (nearest the end of the output).
    const routeKinds = /\[(undocumented-route|unserved-operation|document)\]/;
    const sorted = [...groups.entries()].sort((a, b) => Number(!routeKinds.test(a[0])) - Number(!routeKinds.test(b[0])) || (a[0] < b[0] ? -1 : 1));
    const total = sorted.reduce((n, [, g]) => n + g.count, 0);
    const lines = sorted.map(([k, g]) => {
      const files = [...g.files].map((f) => path.basename(f, '.test.ts'));
      return `  ${k} (x${g.count}; ${files.slice(0, 2).join(', ')}${files.length > 2 ? ` +${files.length - 2} files` : ''})`;
    });
    process.stdout.write(
      `\nOpenAPI conformance (CONFORMANCE=${process.env.CONFORMANCE ?? 'strict'}): ${total} violation(s), ${groups.size} distinct:\n${lines.join('\n')}\n`,
    );
  };
}
