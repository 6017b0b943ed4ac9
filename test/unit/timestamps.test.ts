// iso() (domain/timestamps.ts): PostgreSQL's UTC text form rewritten without a Date, and the same
// answer as Date#toISOString for every input.
import { describe, expect, it } from 'vitest';
import { iso, isoOrNull } from '../../src/domain/timestamps.js';

const viaDate = (v: Date | string) => new Date(v).toISOString();

describe('iso', () => {
  it('rewrites UTC text of every fraction length exactly as Date would (milliseconds, truncated)', () => {
    for (const s of [
      '2026-11-22 11:17:12+00',
      '2026-11-22 11:17:12.1+00',
      '2026-11-22 11:17:12.12+00',
      '2026-11-22 11:17:12.123+00',
      '2026-11-22 11:17:12.1239+00',
      '2026-11-22 11:17:12.999999+00',
      '1999-12-31 23:59:59.000001+00',
    ]) {
      expect(iso(s), s).toBe(viaDate(s));
    }
    expect(iso('2026-11-22 11:17:12.103456+00')).toBe('2026-11-22T11:17:12.103Z');
  });

  it('other offsets, other text and Dates go through Date', () => {
    expect(iso('2026-11-22 12:17:12.5+01')).toBe('2026-11-22T11:17:12.500Z');
    expect(iso('2026-11-22 16:47:12+05:30')).toBe('2026-11-22T11:17:12.000Z');
    expect(iso('2026-11-22T11:17:12.000Z')).toBe('2026-11-22T11:17:12.000Z');
    const d = new Date(Date.UTC(2026, 10, 22, 11, 17, 12, 7));
    expect(iso(d)).toBe('2026-11-22T11:17:12.007Z');
    expect(() => iso('not a time')).toThrow(RangeError);
  });

  it('isoOrNull keeps null', () => {
    expect(isoOrNull(null)).toBeNull();
    expect(isoOrNull('2026-11-22 11:17:12+00')).toBe('2026-11-22T11:17:12.000Z');
  });
});
