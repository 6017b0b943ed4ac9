// LazyEmContext / existingEm (app/lazy-em-context.ts): an operation's EntityManager is forked on first
// use only, and asking whether there is one never forks one.
import type { EntityManager } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import type { OpContext } from '../../src/domain/context.js';
import { existingEm, LazyEmContext } from '../../src/app/lazy-em-context.js';
import type { Ports } from '../../src/domain/ports.js';

/** An EntityManager stand-in: counts forks; each fork may be put in a transaction. */
function fakeRoot() {
  const connection = { name: 'shared connection' };
  const forks: Array<{ trx: unknown }> = [];
  const make = (state: { trx: unknown }) =>
    ({
      getConnection: () => connection,
      getTransactionContext: () => state.trx,
      fork: () => {
        const s = { trx: undefined };
        forks.push(s);
        return make(s);
      },
    }) as unknown as EntityManager;
  return { root: make({ trx: undefined }), connection, forks };
}

const lazy = (root: EntityManager): OpContext =>
  new LazyEmContext(
    { type: 'system' },
    'req-1',
    'rest',
    'v1',
    {
      info() {},
      warn() {},
      error() {},
      debug() {},
      child() {
        return this;
      },
    },
    { now: () => new Date(0) },
    { publicBaseUrl: 'http://x', allowedEmailDomains: null, egressAllowHosts: new Set() },
    {} as Ports,
    root,
  );

describe('lazy EntityManager of an operation context', () => {
  it('forks on the first read of ctx.em, once', () => {
    const f = fakeRoot();
    const ctx = lazy(f.root);
    expect(f.forks).toHaveLength(0);
    expect(existingEm(ctx)).toBeUndefined();
    const em = ctx.em;
    expect(f.forks).toHaveLength(1);
    expect(ctx.em).toBe(em);
    expect(existingEm(ctx)).toBe(em);
    expect(f.forks).toHaveLength(1);
  });

  it('a spread with its own em hands that em on (the lazy bookkeeping is not copied)', () => {
    const f = fakeRoot();
    const ctx = lazy(f.root);
    const mine = { getConnection: () => f.connection, getTransactionContext: () => 'caller-trx' } as unknown as EntityManager;
    const inner: OpContext = { ...ctx, em: mine };
    expect(inner.em).toBe(mine);
    expect(existingEm(inner)).toBe(mine);
    expect(inner.principal).toBe(ctx.principal);
    // The getter lives on the prototype: spreading never forks one for the outer context.
    expect(f.forks).toHaveLength(0);
    expect(existingEm(ctx)).toBeUndefined();
  });
});
