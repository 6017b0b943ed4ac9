// infra/tokens/token-directory.ts: the lookups of one turn of the event loop share one statement
// (one text[] of distinct hashes), every turn reads again, and the principal cache is separate
// from the lookups (a lookup never fills it; authenticate() decides what is cached).
import type { Connection } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import { DatabaseTokenDirectory } from '../../src/infra/tokens/token-directory.js';
import type { InboundTokenAuthRow } from '../../src/domain/tokens/token-directory.js';

function fakeConnection() {
  const calls: Array<{ sql: string; params: unknown[] }> = [];
  const conn = {
    async execute(sql: string, params: unknown[]) {
      calls.push({ sql, params });
      const hashes = String(params[0])
        .slice(1, -1)
        .split(',')
        .map((h) => h.replace(/"/g, ''));
      return hashes.filter((h) => !h.startsWith('unknown')).map((h) => ({ matched_hash: h, id: `id-${h}` }));
    },
  } as unknown as Connection;
  return { conn, calls };
}

describe('DatabaseTokenDirectory', () => {
  it('concurrent lookups share one statement; a hash asked twice is asked once; each caller gets its row', async () => {
    const { conn, calls } = fakeConnection();
    const dir = new DatabaseTokenDirectory(conn);
    const rows = await Promise.all([dir.findInbound('a'), dir.findInbound('b'), dir.findInbound('a'), dir.findInbound('unknown-1')]);
    expect(rows.map((r) => r?.id)).toEqual(['id-a', 'id-b', 'id-a', undefined]);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.sql).toContain('inbound_tokens');
    expect(calls[0]!.params).toEqual(['{"a","b","unknown-1"}']);
    // The row carries no matched_hash (it is the statement's join key only).
    expect(rows[0]).toEqual({ id: 'id-a' });
  });

  it('a later turn reads again; agent lookups are a statement of their own', async () => {
    const { conn, calls } = fakeConnection();
    const dir = new DatabaseTokenDirectory(conn);
    await dir.findInbound('a');
    await dir.findInbound('a');
    await dir.findAgent('a');
    expect(calls).toHaveLength(3);
    expect(calls[2]!.sql).toContain('agent_tokens');
  });

  it('the cache holds only what is stored in it, until forgotten', async () => {
    const { conn } = fakeConnection();
    const dir = new DatabaseTokenDirectory(conn);
    await dir.findInbound('a');
    expect(dir.cachedInbound('a')).toBeUndefined();
    const row = { id: 'id-a' } as InboundTokenAuthRow;
    dir.cacheInbound('a', row);
    expect(dir.cachedInbound('a')).toBe(row);
    dir.forgetInbound('a');
    expect(dir.cachedInbound('a')).toBeUndefined();
  });
});
