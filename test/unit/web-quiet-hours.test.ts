// The quiet hours form of the settings page without the DOM (web/src/quiet-hours-form.ts): the draft
// of stored quiet hours (or of none: off, 22:00-07:00 in the browser's zone), the request a draft
// makes (clear when off; HH:MM, days sorted without duplicates), the server's violations by field,
// and the texts that say what is set.
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { ValidationErrorDetailSchema } from '../../gen/fluxdesk/common/v1/errors_pb.js';
import { daysText, draftOf, quietProblems, quietRequest, quietText } from '../../web/src/quiet-hours-form.ts';

const invalid = (violations: { field: string; code: string; message: string }[]) =>
  new ConnectError('invalid', Code.InvalidArgument, undefined, [
    { desc: ValidationErrorDetailSchema, value: create(ValidationErrorDetailSchema, { violations }) },
  ]);

describe('quiet hours form', () => {
  it('a draft of none is off, overnight, in the given zone; of stored hours, on and the same', () => {
    expect(draftOf(undefined, 'Europe/Berlin')).toEqual({ enabled: false, start: '22:00', end: '07:00', timeZone: 'Europe/Berlin', days: [] });
    expect(draftOf({ start: '21:30', end: '06:00', timeZone: 'UTC', days: [6, 7] }, 'Europe/Berlin')).toEqual({
      enabled: true,
      start: '21:30',
      end: '06:00',
      timeZone: 'UTC',
      days: [6, 7],
    });
  });

  it('the request: clear when off; HH:MM, the zone trimmed, days sorted without duplicates when on', () => {
    expect(quietRequest({ enabled: false, start: '22:00', end: '07:00', timeZone: 'UTC', days: [1] })).toEqual({ clearQuietHours: true });
    expect(quietRequest({ enabled: true, start: '22:00:00', end: '07:00', timeZone: ' Europe/Berlin ', days: [5, 1, 3, 1] })).toEqual({
      quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin', days: [1, 3, 5] },
    });
  });

  it('the server’s violations by field (every day index is the days’); another failure is not the form’s', () => {
    const m = quietProblems(
      invalid([
        { field: 'quiet_hours.time_zone', code: 'invalid_time_zone', message: 'must be an IANA time zone such as Europe/Berlin' },
        { field: 'quiet_hours.start', code: 'invalid_format', message: 'must be HH:MM' },
        { field: 'quiet_hours.days.0', code: 'too_small', message: 'too small' },
        { field: 'quiet_hours.days.2', code: 'too_big', message: 'too big' },
        { field: 'clear_quiet_hours', code: 'invalid', message: 'not both' },
      ]),
    );
    expect(Object.fromEntries(m!)).toEqual({
      time_zone: 'must be an IANA time zone such as Europe/Berlin',
      start: 'must be HH:MM',
      days: 'too small; too big',
      form: 'not both',
    });
    expect(Object.fromEntries(quietProblems(new ConnectError('bad', Code.InvalidArgument))!)).toEqual({ form: 'bad' });
    expect(quietProblems(new ConnectError('down', Code.Unavailable))).toBeUndefined();
    expect(quietProblems(new Error('x'))).toBeUndefined();
  });

  it('texts: days as a run or a list, every day when none or all; overnight said', () => {
    expect(daysText([])).toBe('every day');
    expect(daysText([1, 2, 3, 4, 5, 6, 7])).toBe('every day');
    expect(daysText([5, 4, 3, 2, 1])).toBe('Monday to Friday');
    expect(daysText([1, 3])).toBe('Monday, Wednesday');
    expect(daysText([6, 7])).toBe('Saturday, Sunday');
    expect(quietText({ start: '22:00', end: '07:00', timeZone: 'Europe/Berlin', days: [1, 2, 3, 4, 5] })).toBe(
      '22:00–07:00 (until the next day), Europe/Berlin, starting Monday to Friday',
    );
    expect(quietText({ start: '12:00', end: '13:00', timeZone: 'UTC', days: [] })).toBe('12:00–13:00, UTC, every day');
  });
});
