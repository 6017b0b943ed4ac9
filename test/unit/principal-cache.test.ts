import { describe, expect, it } from 'vitest';
import { PrincipalCache } from '../../src/infra/tokens/principal-cache.js';
import type { InboundTokenAuthRow } from '../../src/domain/tokens/token-directory.js';

const row = (id: string) => ({ id }) as InboundTokenAuthRow;

describe('PrincipalCache', () => {
  it('keeps at most maxEntries: the least recently stored goes first', () => {
    const c = new PrincipalCache(3);
    for (const k of ['a', 'b', 'c']) c.set(k, row(k));
    c.set('a', row('a2')); // stored again: now the newest
    c.set('d', row('d'));
    expect(c.size).toBe(3);
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')?.id).toBe('a2');
    expect(c.get('c')?.id).toBe('c');
    expect(c.get('d')?.id).toBe('d');
  });

  it('delete drops an entry', () => {
    const c = new PrincipalCache(2);
    c.set('a', row('a'));
    c.delete('a');
    expect(c.get('a')).toBeUndefined();
    expect(c.size).toBe(0);
  });
});
