// The inbox page's triage rules without the DOM (web/src/triage.ts): the snooze presets on the
// browser's wall clock ("This evening" only before 18:00), the bounds and parsing of "Pick a time",
// what an undo restores, the toasts' texts, id chunks, and the keyboard commands (g sequences).
// Dates are built on the local wall clock, so the tests hold in any time zone the runner has.
import { describe, expect, it } from 'vitest';
import {
  chunks,
  commandOf,
  parsePicked,
  pickBounds,
  readToggle,
  restorePlan,
  SHORTCUTS,
  snoozePresets,
  toLocalInput,
  triageText,
} from '../../web/src/triage.ts';

const local = (y: number, m: number, d: number, h = 0, min = 0) => new Date(y, m - 1, d, h, min);
const presetsAt = (now: Date) => Object.fromEntries(snoozePresets(now).map((p) => [p.preset, p.at.getTime()]));

describe('snoozePresets', () => {
  it('in 1 hour, this evening 18:00, tomorrow 09:00, next Monday 09:00 (a Wednesday afternoon)', () => {
    const now = local(2026, 11, 25, 14, 30); // Wednesday
    expect(snoozePresets(now).map((p) => p.label)).toEqual(['In 1 hour', 'This evening', 'Tomorrow', 'Next week']);
    expect(presetsAt(now)).toEqual({
      one_hour: now.getTime() + 3_600_000,
      this_evening: local(2026, 11, 25, 18).getTime(),
      tomorrow: local(2026, 11, 26, 9).getTime(),
      next_week: local(2026, 11, 30, 9).getTime(),
    });
  });

  it('no "This evening" from 18:00 on; next week from a Monday is a week ahead, from a Sunday the next day', () => {
    expect(snoozePresets(local(2026, 11, 25, 18, 0)).map((p) => p.preset)).toEqual(['one_hour', 'tomorrow', 'next_week']);
    expect(snoozePresets(local(2026, 11, 25, 17, 59)).map((p) => p.preset)).toContain('this_evening');
    expect(presetsAt(local(2026, 11, 30, 8)).next_week).toBe(local(2026, 12, 7, 9).getTime());
    expect(presetsAt(local(2026, 11, 29, 23)).next_week).toBe(local(2026, 11, 30, 9).getTime());
    // Month and year ends roll over.
    expect(presetsAt(local(2026, 12, 31, 20)).tomorrow).toBe(local(2027, 1, 1, 9).getTime());
  });
});

describe('Pick a time', () => {
  const now = local(2026, 11, 25, 14, 30);
  it('bounds: the next minute to 90 days ahead, as datetime-local values', () => {
    expect(toLocalInput(local(2026, 3, 5, 7, 4))).toBe('2026-03-05T07:04');
    expect(pickBounds(now).min).toBe('2026-11-25T14:31');
    expect(pickBounds(now).max).toBe(toLocalInput(new Date(now.getTime() + 90 * 86_400_000)));
  });

  it('a picked value is a local time after now and at most 90 days ahead', () => {
    expect(parsePicked('2026-11-27T14:30', now)).toEqual({ until: local(2026, 11, 27, 14, 30) });
    expect(parsePicked('', now)).toEqual({ problem: 'Pick a date and a time.' });
    expect(parsePicked('2026-11-25T14:30', now)).toEqual({ problem: 'Pick a time in the future.' });
    expect(parsePicked('2027-03-01T09:00', now)).toEqual({ problem: 'Pick a time at most 90 days ahead.' });
  });
});

describe('restorePlan', () => {
  const now = Date.UTC(2026, 10, 25, 12);
  it('each row back where it was: Inbox by MoveToInbox, Done by MarkDone, Snoozed by a snooze to its old time', () => {
    expect(
      restorePlan(
        [
          { id: 'a', state: 'inbox' },
          { id: 'b', state: 'done' },
          { id: 'c', state: 'snoozed', snoozedUntil: now + 3_600_000 },
        ],
        now,
      ),
    ).toEqual({ toInbox: ['a'], toDone: ['b'], resnooze: [{ id: 'c', until: now + 3_600_000 }] });
  });

  it('a snooze whose time has come (or is seconds away) goes back to the Inbox instead', () => {
    expect(restorePlan([{ id: 'c', state: 'snoozed', snoozedUntil: now + 1000 }], now)).toEqual({ toInbox: ['c'], toDone: [], resnooze: [] });
    expect(restorePlan([{ id: 'd', state: 'snoozed' }], now).toInbox).toEqual(['d']);
  });
});

describe('texts and chunks', () => {
  it('toasts', () => {
    expect(triageText('done', 1)).toBe('Marked done');
    expect(triageText('done', 3)).toBe('Marked 3 done');
    expect(triageText('inbox', 1)).toBe('Moved to Inbox');
    expect(triageText('inbox', 2)).toBe('Moved 2 to Inbox');
    expect(triageText('snooze', 1, 'Nov 26, 9:00 AM')).toBe('Snoozed until Nov 26, 9:00 AM');
    expect(triageText('snooze', 4, 'Nov 26, 9:00 AM')).toBe('Snoozed 4 until Nov 26, 9:00 AM');
  });

  it('u toggles read: read when any is unread (a group, a selection), else unread; its toasts', () => {
    expect(readToggle([false])).toBe('read');
    expect(readToggle([true])).toBe('unread');
    expect(readToggle([true, false, true])).toBe('read');
    expect(readToggle([true, true])).toBe('unread');
    expect(readToggle([])).toBeUndefined();
    expect(triageText('read', 1)).toBe('Marked read');
    expect(triageText('read', 3)).toBe('Marked 3 read');
    expect(triageText('unread', 1)).toBe('Marked unread');
    expect(triageText('unread', 2)).toBe('Marked 2 unread');
  });

  it('ids in calls of at most 500', () => {
    const ids = Array.from({ length: 1001 }, (_, i) => String(i));
    expect(chunks(ids).map((c) => c.length)).toEqual([500, 500, 1]);
    expect(chunks([])).toEqual([]);
    expect(chunks(['a', 'b', 'c'], 2)).toEqual([['a', 'b'], ['c']]);
  });
});

describe('commandOf', () => {
  it('single keys', () => {
    expect(['j', 'k', 'Enter', 'o', 'e', 'h', 'u', 'x', 'z', '?', 'Escape'].map((k) => commandOf(k, false))).toEqual([
      'next',
      'prev',
      'open',
      'open',
      'done',
      'snooze',
      'read',
      'select',
      'undo',
      'help',
      'clear',
    ]);
    expect(commandOf('/', false)).toBe('search');
    expect(commandOf('J', false)).toBeUndefined();
  });

  it('g starts a sequence; i, s, d, a after it name a view; anything else ends it', () => {
    expect(commandOf('g', false)).toBe('g');
    expect(['i', 's', 'd', 'a'].map((k) => commandOf(k, true))).toEqual([{ go: 'inbox' }, { go: 'snoozed' }, { go: 'done' }, { go: 'all' }]);
    expect(commandOf('e', true)).toBeUndefined();
    expect(commandOf('g', true)).toBeUndefined();
  });

  it('the dialog lists every command', () => {
    const listed = SHORTCUTS.flatMap((s) => s.keys.map((seq) => seq.join(' ')));
    expect(listed).toEqual(expect.arrayContaining(['j', 'k', 'Enter', 'o', 'e', 'h', 'x', 'u', 'z', 'g i', 'g s', 'g d', 'g a', '/', 'Esc', '?']));
  });
});
