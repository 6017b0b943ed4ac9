// scripts/check-layers.mjs (`npm run lint:layers`): no timers or event-loop scheduling in
// src/domain/, SQL only in *.repository.ts (or src/domain/sql.ts), and no module-level state in
// src/domain/ and src/infra/. Run on a fixture tree: each finding is reported as file:line:column
// with its rule, and any finding exits 1.
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

  it('reports module-level state in src/domain and src/infra: let, var, kept collections, writes and mutating calls through module bindings', () => {
    const { status, lines } = check({
      'src/infra/http/settings.ts': [
        "import { defaults } from './defaults.js';",
        'export let timeoutMs = 5000;',
        'var legacy = 1;',
        'const settings: { timeoutMs?: number } = { timeoutMs: 5000 };',
        'const cache = new Map<string, string>();',
        'const seen: string[] = [];',
        'export class Registry {',
        '  static count = 0;',
        '  static readonly known = new WeakSet<object>();',
        '}',
        'export function setTimeoutMs(ms: number) {',
        '  settings.timeoutMs = ms;',
        '  Registry.count++;',
        '  defaults.retries = 3;',
        "  seen.push('x');",
        "  cache.set('a', 'b');",
        '  delete settings.timeoutMs;',
        '}',
      ].join('\n'),
      'src/domain/events/counting.rules.ts': ['const state = { n: 0 };', 'export function bump(): void {', '  state.n++;', '}'].join('\n'),
      // Transports are not checked by this rule.
      'src/transports/web/session.ts': 'export let current = 0;\n',
    });
    expect(status).toBe(1);
    expect(lines).toEqual([
      'src/domain/events/counting.rules.ts:3:3 module-state: state.n changes module-level state',
      'src/infra/http/settings.ts:2:12 module-state: module-level let timeoutMs',
      'src/infra/http/settings.ts:3:5 module-state: module-level var legacy',
      'src/infra/http/settings.ts:5:15 module-state: new Map(...) kept by the module (cache): a const typed ReadonlyMap, or a value built in src/deps.ts',
      'src/infra/http/settings.ts:9:27 module-state: new WeakSet(...) kept by the module (known): a value built in src/deps.ts',
      'src/infra/http/settings.ts:12:3 module-state: settings.timeoutMs changes module-level settings',
      'src/infra/http/settings.ts:13:3 module-state: Registry.count changes module-level Registry',
      'src/infra/http/settings.ts:14:3 module-state: defaults.retries changes module-level defaults',
      'src/infra/http/settings.ts:15:3 module-state: seen.push(...) changes module-level seen',
      'src/infra/http/settings.ts:16:3 module-state: cache.set(...) changes module-level cache',
      'src/infra/http/settings.ts:17:10 module-state: settings.timeoutMs changes module-level settings',
    ]);
  });

  it('read-only collections, state made per call or per instance, and locals that shadow a module binding pass', () => {
    const { status, lines } = check({
      'src/domain/events/counting.rules.ts': [
        "const KINDS: ReadonlySet<string> = new Set(['a', 'b']);",
        "const BY_KIND: ReadonlyMap<string, number> = new Map([['a', 1]]);",
        'const state = { n: 0 };',
        'export function count(items: string[], state: { n: number }): number {',
        '  let n = 0;',
        '  const local = new Map<string, number>();',
        '  for (const i of items) {',
        '    n++;',
        '    local.set(i, n);',
        '  }',
        '  state.n = n;',
        "  return n + (KINDS.has('a') ? BY_KIND.get('a')! : 0);",
        '}',
        'export const initial = () => state.n;',
      ].join('\n'),
      'src/infra/store/rows.ts': [
        'export class Store {',
        '  private readonly rows = new Map<string, number>();',
        '  put(k: string): void {',
        '    this.rows.set(k, 1);',
        '  }',
        '}',
        'export function build(): Store {',
        '  const settings = { timeoutMs: 1 };',
        '  settings.timeoutMs = 2;',
        '  return new Store();',
        '}',
      ].join('\n'),
    });
    expect(lines).toEqual([]);
    expect(status).toBe(0);
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
