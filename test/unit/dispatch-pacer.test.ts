// DispatchPacer (src/infra/queue/dispatch-pacer.ts): the nudge dispatcher yields while the process
// has at least `busyAt` operations in flight, for at most `maxDeferMs` of one busy spell; a spell
// ends after QUIET_MS below the threshold. Driven by a fake clock and in-flight count.
import { describe, expect, it } from 'vitest';
import { DispatchPacer, QUIET_MS } from '../../src/infra/queue/dispatch-pacer.js';

function pacer(busyAt = 4, maxDeferMs = 30_000) {
  const s = { inFlight: 0, now: 1_000_000 };
  const p = new DispatchPacer({ inFlight: () => s.inFlight, busyAt, maxDeferMs, nowMs: () => s.now });
  return { s, p };
}

describe('DispatchPacer', () => {
  it('runs at full speed below the threshold and yields from it', () => {
    const { s, p } = pacer(4);
    s.inFlight = 3;
    expect(p.mode()).toBe('full');
    s.inFlight = 4;
    expect(p.mode()).toBe('yield');
    s.inFlight = 40;
    expect(p.mode()).toBe('yield');
    s.inFlight = 0;
    expect(p.mode()).toBe('full');
  });

  it('busyAt 0 never yields', () => {
    const { s, p } = pacer(0);
    s.inFlight = 1000;
    expect(p.mode()).toBe('full');
  });

  it('a busy spell defers nudges for at most maxDeferMs, then full speed until the spell ends', () => {
    const { s, p } = pacer(4, 30_000);
    s.inFlight = 10;
    expect(p.mode()).toBe('yield');
    s.now += 29_999;
    expect(p.mode()).toBe('yield');
    s.now += 1;
    expect(p.mode()).toBe('full');
    s.now += 60_000;
    expect(p.mode()).toBe('full');
  });

  it('a dip shorter than QUIET_MS does not end the spell; a longer one does', () => {
    const { s, p } = pacer(4, 30_000);
    s.inFlight = 10;
    expect(p.mode()).toBe('yield');
    s.now += 20_000;
    expect(p.mode()).toBe('yield'); // still busy 20 s later
    s.inFlight = 0;
    expect(p.mode()).toBe('full');
    s.now += QUIET_MS - 1;
    s.inFlight = 10;
    expect(p.mode()).toBe('yield');
    s.now += 10_000; // 30 s into the same spell
    expect(p.mode()).toBe('full');

    s.inFlight = 0;
    expect(p.mode()).toBe('full');
    s.now += QUIET_MS;
    expect(p.mode()).toBe('full');
    s.inFlight = 10; // a new spell
    expect(p.mode()).toBe('yield');
  });
});
