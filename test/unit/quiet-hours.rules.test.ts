// Quiet hours (src/domain/nudges/quiet-hours.rules.ts): a window on the wall clock of a time zone,
// overnight windows belonging to the day they start on, DST days, days of the week, start == end,
// when the summary is due, and its text.
import { describe, expect, it } from 'vitest';
import { isQuietAt, quietSummarySeverity, quietSummaryText, summaryDue, type QuietHours } from '../../src/domain/nudges/quiet-hours.rules.js';

const q = (start: string, end: string, timeZone: string, days: number[] = []): QuietHours => ({ start, end, timeZone, days });
const at = (iso: string) => new Date(iso);

describe('an overnight window in a non-UTC zone', () => {
  // Asia/Tokyo is UTC+9 all year. 22:00-07:00 Tokyo = 13:00-22:00 UTC.
  const tokyo = q('22:00', '07:00', 'Asia/Tokyo');

  it('is quiet from the start to midnight and from midnight to the end, on the zone’s wall clock', () => {
    expect(isQuietAt(tokyo, at('2026-12-02T12:59:59Z'))).toBe(false); // 21:59:59
    expect(isQuietAt(tokyo, at('2026-12-02T13:00:00Z'))).toBe(true); // 22:00
    expect(isQuietAt(tokyo, at('2026-12-02T14:59:00Z'))).toBe(true); // 23:59
    expect(isQuietAt(tokyo, at('2026-12-02T15:00:00Z'))).toBe(true); // 00:00 next day
    expect(isQuietAt(tokyo, at('2026-12-02T21:59:59Z'))).toBe(true); // 06:59:59
    expect(isQuietAt(tokyo, at('2026-12-02T22:00:00Z'))).toBe(false); // 07:00: the end is not quiet
    expect(isQuietAt(tokyo, at('2026-12-03T03:00:00Z'))).toBe(false); // 12:00
  });

  it('the same instants are not quiet for the same window in UTC', () => {
    const utc = q('22:00', '07:00', 'UTC');
    expect(isQuietAt(utc, at('2026-12-02T13:00:00Z'))).toBe(false);
    expect(isQuietAt(utc, at('2026-12-02T23:30:00Z'))).toBe(true);
  });

  it('a window within one day', () => {
    const lunch = q('12:00', '13:30', 'America/New_York');
    expect(isQuietAt(lunch, at('2026-12-02T16:59:00Z'))).toBe(false); // 11:59 EST
    expect(isQuietAt(lunch, at('2026-12-02T17:00:00Z'))).toBe(true); // 12:00
    expect(isQuietAt(lunch, at('2026-12-02T18:29:59Z'))).toBe(true); // 13:29:59
    expect(isQuietAt(lunch, at('2026-12-02T18:30:00Z'))).toBe(false); // 13:30
  });
});

describe('DST days', () => {
  const berlin = q('22:00', '07:00', 'Europe/Berlin');

  it('spring forward (Berlin, 2027-03-28: 02:00 CET becomes 03:00 CEST): the window ends at 07:00 CEST', () => {
    // 06:59 CEST = 04:59 UTC; a fixed +01:00 offset would put it at 05:59 and call it quiet.
    expect(isQuietAt(berlin, at('2027-03-28T04:59:00Z'))).toBe(true);
    expect(isQuietAt(berlin, at('2027-03-28T05:00:00Z'))).toBe(false); // 07:00 CEST
    expect(isQuietAt(berlin, at('2027-03-28T05:30:00Z'))).toBe(false); // 07:30 CEST (06:30 at the old offset)
    // The night started at 22:00 CET the evening before (21:00 UTC).
    expect(isQuietAt(berlin, at('2027-03-27T20:59:00Z'))).toBe(false);
    expect(isQuietAt(berlin, at('2027-03-27T21:00:00Z'))).toBe(true);
  });

  it('fall back (Berlin, 2026-10-25: 03:00 CEST becomes 02:00 CET): the night is an hour longer, the end still 07:00 CET', () => {
    expect(isQuietAt(berlin, at('2026-10-24T19:59:00Z'))).toBe(false); // 21:59 CEST
    expect(isQuietAt(berlin, at('2026-10-24T20:00:00Z'))).toBe(true); // 22:00 CEST
    expect(isQuietAt(berlin, at('2026-10-25T00:30:00Z'))).toBe(true); // 02:30 CEST (the first one)
    expect(isQuietAt(berlin, at('2026-10-25T01:30:00Z'))).toBe(true); // 02:30 CET (the second one)
    expect(isQuietAt(berlin, at('2026-10-25T05:59:00Z'))).toBe(true); // 06:59 CET
    expect(isQuietAt(berlin, at('2026-10-25T06:00:00Z'))).toBe(false); // 07:00 CET
  });

  it('a window starting in the hour that does not exist begins when the clock jumps past it', () => {
    const night = q('02:30', '05:00', 'America/New_York');
    // 2027-03-14: 02:00 EST becomes 03:00 EDT; 01:59 EST = 06:59 UTC, 03:00 EDT = 07:00 UTC.
    expect(isQuietAt(night, at('2027-03-14T06:59:00Z'))).toBe(false);
    expect(isQuietAt(night, at('2027-03-14T07:00:00Z'))).toBe(true);
    expect(isQuietAt(night, at('2027-03-14T08:59:00Z'))).toBe(true); // 04:59 EDT
    expect(isQuietAt(night, at('2027-03-14T09:00:00Z'))).toBe(false); // 05:00 EDT
  });
});

describe('days of the week', () => {
  // Weeknights: Monday to Friday evenings, each until the next morning (UTC for readability).
  // 2026-12-04 is a Friday, 12-05 Saturday, 12-06 Sunday, 12-07 Monday.
  const weeknights = q('22:00', '07:00', 'UTC', [1, 2, 3, 4, 5]);

  it('an overnight window belongs to the day it starts on', () => {
    expect(isQuietAt(weeknights, at('2026-12-04T23:00:00Z'))).toBe(true); // Friday night
    expect(isQuietAt(weeknights, at('2026-12-05T06:00:00Z'))).toBe(true); // Saturday morning: Friday's window
    expect(isQuietAt(weeknights, at('2026-12-05T23:00:00Z'))).toBe(false); // Saturday night
    expect(isQuietAt(weeknights, at('2026-12-06T23:00:00Z'))).toBe(false); // Sunday night
    expect(isQuietAt(weeknights, at('2026-12-07T06:00:00Z'))).toBe(false); // Monday morning: Sunday's window
    expect(isQuietAt(weeknights, at('2026-12-07T23:00:00Z'))).toBe(true); // Monday night
  });

  it('a window within the day only on its days; empty = every day', () => {
    const weekend = q('09:00', '18:00', 'UTC', [6, 7]);
    expect(isQuietAt(weekend, at('2026-12-05T12:00:00Z'))).toBe(true);
    expect(isQuietAt(weekend, at('2026-12-06T12:00:00Z'))).toBe(true);
    expect(isQuietAt(weekend, at('2026-12-07T12:00:00Z'))).toBe(false);
    const daily = q('09:00', '18:00', 'UTC', []);
    for (const d of ['2026-12-05', '2026-12-06', '2026-12-07']) expect(isQuietAt(daily, at(`${d}T12:00:00Z`))).toBe(true);
  });

  it('the weekday is the zone’s: Friday 23:00 in Los Angeles is Saturday in UTC', () => {
    const fridayEvening = q('20:00', '23:59', 'America/Los_Angeles', [5]);
    expect(isQuietAt(fridayEvening, at('2026-12-05T07:00:00Z'))).toBe(true); // Fri 23:00 PST
    expect(isQuietAt(q('20:00', '23:59', 'UTC', [5]), at('2026-12-05T07:00:00Z'))).toBe(false);
  });
});

describe('start == end', () => {
  it('is the whole day from that time, on the days given', () => {
    const allDay = q('00:00', '00:00', 'Europe/Berlin', [6, 7]);
    expect(isQuietAt(allDay, at('2026-12-04T22:59:00Z'))).toBe(false); // Fri 23:59 CET
    expect(isQuietAt(allDay, at('2026-12-04T23:00:00Z'))).toBe(true); // Sat 00:00
    expect(isQuietAt(allDay, at('2026-12-06T22:59:00Z'))).toBe(true); // Sun 23:59
    expect(isQuietAt(allDay, at('2026-12-06T23:00:00Z'))).toBe(false); // Mon 00:00
  });

  it('at another time: 24 hours from it, belonging to the day it starts on', () => {
    const fromNine = q('09:00', '09:00', 'UTC', [1]);
    expect(isQuietAt(fromNine, at('2026-12-07T08:59:00Z'))).toBe(false); // Mon 08:59: Sunday's window is not on
    expect(isQuietAt(fromNine, at('2026-12-07T09:00:00Z'))).toBe(true);
    expect(isQuietAt(fromNine, at('2026-12-08T08:59:00Z'))).toBe(true); // Tue 08:59, still Monday's
    expect(isQuietAt(fromNine, at('2026-12-08T09:00:00Z'))).toBe(false);
    expect(isQuietAt(q('09:00', '09:00', 'UTC'), at('2026-12-08T09:00:00Z'))).toBe(true); // every day: always
  });
});

describe('the summary', () => {
  const tokyo = q('22:00', '07:00', 'Asia/Tokyo');
  const grace = 60_000;

  it('is due once the window ended at least the grace ago, or when there are no quiet hours', () => {
    expect(summaryDue(tokyo, at('2026-12-02T21:59:00Z'), grace)).toBe(false); // 06:59: quiet
    expect(summaryDue(tokyo, at('2026-12-02T22:00:30Z'), grace)).toBe(false); // 07:00:30: ended 30 s ago
    expect(summaryDue(tokyo, at('2026-12-02T22:01:00Z'), grace)).toBe(true);
    expect(summaryDue(null, at('2026-12-02T21:59:00Z'), grace)).toBe(true);
  });

  it('text and severity', () => {
    expect(quietSummaryText({ info: 5, warn: 2 })).toBe('7 arrived while quiet: 2 warn, 5 info');
    expect(quietSummaryText({ success: 1 })).toBe('1 arrived while quiet: 1 success');
    expect(quietSummarySeverity({ info: 5, warn: 2 })).toBe('warn');
    expect(quietSummarySeverity({ success: 1, info: 1 })).toBe('info');
  });
});
