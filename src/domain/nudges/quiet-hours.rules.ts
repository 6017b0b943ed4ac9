// Quiet hours of a person (nudges only; the inbox always records): a daily window from `start` to
// `end` (HH:MM on the wall clock of an IANA time zone) on some days of the week (ISO 1 = Monday to
// 7 = Sunday; none = every day). A window whose end is not after its start spans midnight and
// belongs to the day it starts on (Friday 22:00-07:00 is quiet until Saturday 07:00); start == end
// is the whole day from that time. The wall clock is the zone's, DST days included: 07:00 is 07:00
// whatever the offset did overnight.
//
// The publish and wake statements decide the same rule in SQL (nudges.repository.ts quietAtSql,
// `at time zone`), so a held nudge is known in the commit that would have queued it; the summary
// task decides here which users' quiet hours are over. test/integration/nudges/quiet-hours.test.ts
// checks that both agree.
import { DateTime } from 'luxon';
import type { Severity } from './nudge.rules.js';
import { SEVERITIES } from '../events/event.limits.js';

/** A person's quiet hours as stored and answered (days sorted, without duplicates). */
export interface QuietHours {
  /** `HH:MM`, 00:00-23:59. */
  start: string;
  end: string;
  /** IANA time zone, e.g. Europe/Berlin. */
  timeZone: string;
  /** ISO days of the week the window starts on, 1 (Monday) to 7 (Sunday); empty = every day. */
  days: readonly number[];
}

/** `HH:MM` on a 24-hour clock. */
export const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** ISO days of the week. */
export const ISO_DAY_MIN = 1;
export const ISO_DAY_MAX = 7;

/** Severities that nudge during quiet hours too. */
export const QUIET_HOURS_PASS: readonly Severity[] = ['critical'];

const minuteOfDay = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Is `at` inside the quiet hours `q`? */
export function isQuietAt(q: QuietHours, at: Date): boolean {
  const local = DateTime.fromJSDate(at, { zone: q.timeZone });
  if (!local.isValid) return false;
  // Whole minutes compare like the time of day: start and end are whole minutes.
  const t = local.hour * 60 + local.minute;
  const s = minuteOfDay(q.start);
  const e = minuteOfDay(q.end);
  const onDay = (isoDay: number) => q.days.length === 0 || q.days.includes(isoDay);
  // From the start to the end (or to midnight, when the window spans it), on a day it starts on.
  if (t >= s && (s >= e || t < e) && onDay(local.weekday)) return true;
  // After midnight, in a window that started the day before.
  return s >= e && t < e && onDay(local.weekday === 1 ? 7 : local.weekday - 1);
}

/**
 * Is a summary of the nudges held for a person due at `now`? When they have no quiet hours (any
 * more), or theirs ended at least `graceMs` ago: neither now nor `graceMs` earlier is quiet. The
 * grace lets every publish that decided "quiet" just before the end commit before its user's held
 * nudges are summed up, so one quiet spell gives one summary.
 */
export function summaryDue(q: QuietHours | null, now: Date, graceMs: number): boolean {
  if (q === null) return true;
  return !isQuietAt(q, now) && !isQuietAt(q, new Date(now.getTime() - graceMs));
}

/** Held nudges per severity of one summary. */
export type HeldCounts = Readonly<Partial<Record<string, number>>>;

/** The summary nudge's text: `7 arrived while quiet: 2 warn, 5 info` (severities most urgent first). */
export function quietSummaryText(counts: HeldCounts): string {
  const parts = SEVERITIES.filter((s) => (counts[s] ?? 0) > 0).map((s) => `${counts[s]} ${s}`);
  const total = SEVERITIES.reduce((n, s) => n + (counts[s] ?? 0), 0);
  return `${total} arrived while quiet: ${parts.join(', ')}`;
}

/** The most urgent severity held: the summary nudge's severity (chat label, push urgency). */
export function quietSummarySeverity(counts: HeldCounts): Severity {
  return SEVERITIES.find((s) => (counts[s] ?? 0) > 0) ?? 'info';
}

/** Sorted, without duplicates. */
export const normalizeDays = (days: readonly number[]): number[] => [...new Set(days)].sort((a, b) => a - b);
