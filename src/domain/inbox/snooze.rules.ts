// When a snooze may end, and the presets a person picks from, in their own time zone (DST days
// included: "tomorrow 09:00" is 09:00 on the wall clock, whatever the offset does overnight).
import { DateTime, IANAZone } from 'luxon';
import { INBOX_LIMITS, SNOOZE_HOURS, SNOOZE_PRESETS, type SnoozePreset } from './inbox.limits.js';

export { SNOOZE_PRESETS, type SnoozePreset };

/** Wall-clock hours of the presets. */
const EVENING_HOUR = SNOOZE_HOURS.evening;
const MORNING_HOUR = SNOOZE_HOURS.morning;

export const isTimeZone = (tz: string): boolean => tz.length <= 64 && IANAZone.isValidZone(tz);

/** Why a snooze cannot end at `until`, or undefined when it can (after now, at most 90 days ahead). */
export function snoozeUntilProblem(until: Date, now: Date): string | undefined {
  if (until.getTime() <= now.getTime()) return 'must be in the future';
  if (until.getTime() > now.getTime() + INBOX_LIMITS.snoozeMaxDays * 86_400_000) return `must be at most ${INBOX_LIMITS.snoozeMaxDays} days ahead`;
  return undefined;
}

/**
 * The end of a preset for someone in `timeZone` at `now`: one hour from now; this evening 18:00
 * (undefined from 18:00 on: the evening has come); tomorrow 09:00; next Monday 09:00 (a week
 * ahead when today is Monday).
 */
export function presetTime(preset: SnoozePreset, now: Date, timeZone: string): Date | undefined {
  const local = DateTime.fromJSDate(now, { zone: timeZone });
  switch (preset) {
    case 'one_hour':
      return new Date(now.getTime() + 3_600_000);
    case 'this_evening': {
      const evening = local.set({ hour: EVENING_HOUR, minute: 0, second: 0, millisecond: 0 });
      return evening > local ? evening.toJSDate() : undefined;
    }
    case 'tomorrow':
      return local.plus({ days: 1 }).set({ hour: MORNING_HOUR, minute: 0, second: 0, millisecond: 0 }).toJSDate();
    case 'next_week':
      return local
        .plus({ days: 8 - local.weekday })
        .set({ hour: MORNING_HOUR, minute: 0, second: 0, millisecond: 0 })
        .toJSDate();
  }
}
