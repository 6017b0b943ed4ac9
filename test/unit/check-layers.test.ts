// scripts/check-layers.mjs (`npm run lint:layers`): no timers or event-loop scheduling in
// src/domain/, and SQL only in *.repository.ts (or src/domain/sql.ts). Run on a fixture tree: each
// finding is reported as file:line:column with its rule, and any finding exits 1.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/check-layers.mjs');
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function check(files: Record<string, string>): { status: number | null; lines: string[] } {
  const root = mkdtempSync(path.join(tmpdir(), 'check-layers-'));
  roots.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  return { status: r.status, lines: r.stdout.split('\n').filter((l) => /^src\//.test(l)) };
}

describe('check-layers', () => {
  it('reports every kind of scheduling in src/domain with file:line:column, and exits 1', () => {
    const { status, lines } = check({
      'src/domain/events/batcher.ts': [
        "import { setTimeout as sleep } from 'node:timers/promises';",
        'export function later(f: () => void) {',
        '  setImmediate(f);',
        '  setTimeout(f, 5);',
        '  process.nextTick(f);',
        '  queueMicrotask(f);',
        '  globalThis.setInterval(f, 10);',
        '  return new Promise((r) => r(undefined));',
        '}',
      ].join('\n'),
    });
    expect(status).toBe(1);
    expect(lines).toEqual([
      'src/domain/events/batcher.ts:1:10 scheduling: setTimeout',
      'src/domain/events/batcher.ts:3:3 scheduling: setImmediate',
      'src/domain/events/batcher.ts:4:3 scheduling: setTimeout',
      'src/domain/events/batcher.ts:5:3 scheduling: process.nextTick',
      'src/domain/events/batcher.ts:6:3 scheduling: queueMicrotask',
      'src/domain/events/batcher.ts:7:3 scheduling: globalThis.setInterval',
      'src/domain/events/batcher.ts:8:10 scheduling: new Promise(...)',
    ]);
  });

  it('reports SQL calls and SQL text outside repositories; repositories, src/domain/sql.ts, infra and prose pass', () => {
    const query = "export const f = (em: any) => em.getConnection().execute(`select id from users where email = ?`, ['a']);\n";
    const { status, lines } = check({
      'src/domain/users/find-user.ts': query,
      'src/domain/users/users.repository.ts': query,
      'src/domain/sql.ts': query,
      'src/infra/users/lookup.ts': query,
      'src/domain/users/messages.ts': "export const hint = 'select a project from the list, or update your token';\n",
      'src/domain/tokens/touch.ts': "export const SQL = 'update inbound_tokens set last_used_at = now() where id = ?';\n",
    });
    expect(status).toBe(1);
    expect(lines).toEqual([
      'src/domain/tokens/touch.ts:1:20 sql: SQL text outside a repository: "update inbound_tokens set last_used_at = now() where id = ?"',
      'src/domain/users/find-user.ts:1:34 sql: .getConnection(...) outside a repository',
      'src/domain/users/find-user.ts:1:50 sql: .execute(...) outside a repository',
      'src/domain/users/find-user.ts:1:58 sql: SQL text outside a repository: "select id from users where email = ?"',
    ]);
  });

  it('a clean domain exits 0', () => {
    const { status, lines } = check({
      'src/domain/events/publish.ts': 'export async function publish(store: { publish(): Promise<number> }) {\n  return await store.publish();\n}\n',
      'src/domain/events/events.repository.ts': "export const SQL = 'select id from deliveries where id = ?';\n",
    });
    expect(lines).toEqual([]);
    expect(status).toBe(0);
  });
});
