// Snooze times (src/domain/inbox/snooze.rules.ts): the presets on the wall clock of a time zone,
// DST days included, and the window a snooze may end in (after now, at most 90 days ahead).
import { describe, expect, it } from 'vitest';
import { isTimeZone, presetTime, snoozeUntilProblem } from '../../src/domain/inbox/snooze.rules.js';

const wall = (d: Date | undefined, tz: string) =>
  d === undefined
    ? undefined
    : new Intl.DateTimeFormat('sv-SE', {
        timeZone: tz,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(d);

describe('presets', () => {
  const berlin = 'Europe/Berlin';
  // Wednesday 2026-12-02 10:30 in Berlin (UTC+1).
  const wed = new Date('2026-12-02T09:30:00Z');

  it('one hour, this evening, tomorrow and next Monday on the local wall clock', () => {
    expect(presetTime('one_hour', wed, berlin)?.toISOString()).toBe('2026-12-02T10:30:00.000Z');
    expect(wall(presetTime('this_evening', wed, berlin), berlin)).toBe('2026-12-02 18:00');
    expect(wall(presetTime('tomorrow', wed, berlin), berlin)).toBe('2026-12-03 09:00');
    expect(wall(presetTime('next_week', wed, berlin), berlin)).toBe('2026-12-07 09:00');
  });

  it('this evening is gone from 18:00 on; on a Monday next week is seven days ahead', () => {
    expect(presetTime('this_evening', new Date('2026-12-02T17:00:00Z'), berlin)).toBeUndefined();
    expect(wall(presetTime('this_evening', new Date('2026-12-02T16:59:00Z'), berlin), berlin)).toBe('2026-12-02 18:00');
    const monday = new Date('2026-12-07T08:00:00Z');
    expect(wall(presetTime('next_week', monday, berlin), berlin)).toBe('2026-12-14 09:00');
  });

  it('the same preset is another instant in another zone', () => {
    expect(wall(presetTime('tomorrow', wed, 'Asia/Tokyo'), 'Asia/Tokyo')).toBe('2026-12-03 09:00');
    expect(presetTime('tomorrow', wed, 'Asia/Tokyo')?.toISOString()).toBe('2026-12-03T00:00:00.000Z');
  });

  it('DST: tomorrow 09:00 across the spring and autumn changes is 09:00 local', () => {
    // Berlin moves to UTC+2 on 2027-03-28 and back on 2027-10-31.
    const spring = presetTime('tomorrow', new Date('2027-03-27T12:00:00Z'), berlin);
    expect(spring?.toISOString()).toBe('2027-03-28T07:00:00.000Z');
    const autumn = presetTime('tomorrow', new Date('2027-10-30T12:00:00Z'), berlin);
    expect(autumn?.toISOString()).toBe('2027-10-31T08:00:00.000Z');
    // New York's spring change: 2027-03-14.
    expect(wall(presetTime('tomorrow', new Date('2027-03-13T15:00:00Z'), 'America/New_York'), 'America/New_York')).toBe('2027-03-14 09:00');
  });
});

describe('the window of until', () => {
  const now = new Date('2026-12-02T09:30:00Z');
  it('after now and at most 90 days ahead', () => {
    expect(snoozeUntilProblem(new Date(now.getTime() + 1), now)).toBeUndefined();
    expect(snoozeUntilProblem(new Date(now.getTime() + 90 * 86_400_000), now)).toBeUndefined();
    expect(snoozeUntilProblem(now, now)).toBe('must be in the future');
    expect(snoozeUntilProblem(new Date(now.getTime() + 90 * 86_400_000 + 1), now)).toBe('must be at most 90 days ahead');
  });
});

describe('time zones', () => {
  it('IANA names only', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone('Europe/Berlin\u0000')).toBe(false);
    expect(isTimeZone('x'.repeat(100))).toBe(false);
  });
});
