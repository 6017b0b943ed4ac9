// The quiet hours form of /settings/notifications, without the DOM (unit-tested in
// test/unit/web-quiet-hours.test.ts): the days of the week (ISO 1 = Monday to 7 = Sunday), the
// request a filled form makes, the server's violations per field (the server validates: `HH:MM`,
// a time zone PostgreSQL knows, days 1-7), and the line that says what is set.
import { Code, ConnectError } from '@connectrpc/connect';
import { ValidationErrorDetailSchema } from '../../gen/fluxdesk/common/v1/errors_pb.js';

/** The ISO days of the week with their names, Monday first. */
export const ISO_DAYS: readonly { day: number; name: string }[] = [
  { day: 1, name: 'Monday' },
  { day: 2, name: 'Tuesday' },
  { day: 3, name: 'Wednesday' },
  { day: 4, name: 'Thursday' },
  { day: 5, name: 'Friday' },
  { day: 6, name: 'Saturday' },
  { day: 7, name: 'Sunday' },
];

/** The form's fields (the time inputs' values are `HH:MM`). */
export interface QuietDraft {
  enabled: boolean;
  start: string;
  end: string;
  timeZone: string;
  days: readonly number[];
}

/** The fields the server names in its violations, as the form shows them. */
export type QuietField = 'start' | 'end' | 'time_zone' | 'days' | 'form';

/** The browser's IANA time zone ('' when it does not say). */
export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone ?? '';
  } catch {
    return '';
  }
}

/** The time zones the browser knows (suggestions only: the server decides). */
export function knownZones(): string[] {
  try {
    return (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  } catch {
    return [];
  }
}

/** The draft of stored quiet hours, or of none (a default window in the browser's zone, off). */
export function draftOf(q: { start: string; end: string; timeZone: string; days: readonly number[] } | undefined, zone = browserZone()): QuietDraft {
  if (!q) return { enabled: false, start: '22:00', end: '07:00', timeZone: zone, days: [] };
  return { enabled: true, start: q.start, end: q.end, timeZone: q.timeZone, days: [...q.days] };
}

/** What SetPreferences gets: the quiet hours, or clear_quiet_hours when the form is off. */
export function quietRequest(d: QuietDraft): { quietHours: { start: string; end: string; timeZone: string; days: number[] } } | { clearQuietHours: true } {
  if (!d.enabled) return { clearQuietHours: true };
  // A time input may answer HH:MM:SS where seconds are allowed: the server takes HH:MM.
  return {
    quietHours: { start: d.start.slice(0, 5), end: d.end.slice(0, 5), timeZone: d.timeZone.trim(), days: [...new Set(d.days)].sort((a, b) => a - b) },
  };
}

/**
 * The server's violations of quiet hours by the form's field (`quiet_hours.days.<i>` is the days'),
 * messages joined; undefined when the error is not invalid_argument (a failure of another kind).
 */
export function quietProblems(e: unknown): Map<QuietField, string> | undefined {
  if (!(e instanceof ConnectError) || e.code !== Code.InvalidArgument) return undefined;
  const out = new Map<QuietField, string>();
  const add = (f: QuietField, m: string) => out.set(f, out.has(f) ? `${out.get(f)}; ${m}` : m);
  for (const d of e.findDetails(ValidationErrorDetailSchema))
    for (const v of d.violations) {
      const [, field] = /^quiet_hours\.(start|end|time_zone|days)\b/.exec(v.field) ?? [];
      add((field as QuietField | undefined) ?? 'form', v.message || v.code);
    }
  if (out.size === 0) out.set('form', e.rawMessage || 'the quiet hours were refused');
  return out;
}

/** "Monday to Friday", "Monday, Wednesday", "every day". */
export function daysText(days: readonly number[]): string {
  const set = [...new Set(days)].sort((a, b) => a - b);
  if (set.length === 0 || set.length === 7) return 'every day';
  const name = (d: number) => ISO_DAYS[d - 1]?.name ?? String(d);
  const run = set.length >= 3 && set.every((d, i) => i === 0 || d === set[i - 1]! + 1);
  return run ? `${name(set[0]!)} to ${name(set.at(-1)!)}` : set.map(name).join(', ');
}

/** "22:00–07:00 (until the next day), Europe/Berlin, starting Monday to Friday". */
export function quietText(q: { start: string; end: string; timeZone: string; days: readonly number[] }): string {
  const overnight = q.end <= q.start ? ' (until the next day)' : '';
  const days = q.days.length === 0 || q.days.length === 7 ? 'every day' : `starting ${daysText(q.days)}`;
  return `${q.start}–${q.end}${overnight}, ${q.timeZone}, ${days}`;
}
