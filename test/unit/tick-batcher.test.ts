// TickBatcher (src/infra/tick-batcher.ts): loads asked for in one turn of the event loop share one
// call; every caller gets its own key's value (or undefined), and a failed call fails its callers.
import { describe, expect, it } from 'vitest';
import { TickBatcher } from '../../src/infra/tick-batcher.js';

function recorder(fail?: (keys: string[]) => boolean, maxBatch = 3) {
  const calls: string[][] = [];
  const b = new TickBatcher<string, string>(async (keys) => {
    calls.push(keys);
    if (fail?.(keys)) throw new Error('load failed');
    return new Map(keys.filter((k) => !k.startsWith('missing')).map((k) => [k, k.toUpperCase()]));
  }, maxBatch);
  return { b, calls };
}

describe('TickBatcher', () => {
  it('one call for the keys asked in one turn; repeated keys asked once; each caller gets its own value', async () => {
    const { b, calls } = recorder(undefined, 8);
    const out = await Promise.all([b.get('a'), b.get('b'), b.get('a'), b.get('missing-1')]);
    expect(out).toEqual(['A', 'B', 'A', undefined]);
    expect(calls).toEqual([['a', 'b', 'missing-1']]);
  });

  it('a later turn is a new call (nothing is cached)', async () => {
    const { b, calls } = recorder();
    expect(await b.get('a')).toBe('A');
    expect(await b.get('a')).toBe('A');
    expect(calls).toEqual([['a'], ['a']]);
  });

  it('more than maxBatch requests in one turn are split into calls of at most maxBatch', async () => {
    const { b, calls } = recorder();
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7'];
    expect(await Promise.all(keys.map((k) => b.get(k)))).toEqual(keys.map((k) => k.toUpperCase()));
    expect(calls).toEqual([['k1', 'k2', 'k3'], ['k4', 'k5', 'k6'], ['k7']]);
  });

  it('maxBatch counts requests: a key asked by several requests of one call is in its keys once', async () => {
    const { b, calls } = recorder();
    const out = await Promise.all(['a', 'a', 'a', 'b', 'a'].map((k) => b.get(k)));
    expect(out).toEqual(['A', 'A', 'A', 'B', 'A']);
    expect(calls).toEqual([['a'], ['b', 'a']]);
  });

  it('a failed call rejects only the callers of that call', async () => {
    const { b } = recorder((keys) => keys.includes('k4'));
    const out = await Promise.allSettled(['k1', 'k2', 'k3', 'k4'].map((k) => b.get(k)));
    expect(out.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    expect((out[3] as PromiseRejectedResult).reason.message).toBe('load failed');
  });
});
