// Daily updates (src/domain/daily-updates/daily-updates.rules.ts): the day an update counts in.
import { describe, expect, it } from 'vitest';
import { utcDay } from '../../src/domain/daily-updates/daily-updates.rules.js';

describe('daily updates', () => {
  it('the UTC day of the clock', () => {
    expect(utcDay(new Date('2026-11-22T23:59:59.999Z'))).toBe('2026-11-22');
    expect(utcDay(new Date('2026-11-23T00:30:00+02:00'))).toBe('2026-11-22');
  });
});
