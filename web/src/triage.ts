// Triage in the inbox page, the parts without the DOM (unit-tested in test/unit/web-triage.test.ts):
// the snooze presets the menu offers on the browser's wall clock, the bounds of "Pick a time", what
// an undo restores, which way `u` toggles read, the toasts' texts, and the keyboard shortcuts.
import { INBOX_LIMITS, type InboxView, SNOOZE_HOURS, type SnoozePreset } from '../../src/domain/inbox/inbox.limits.js';

const HOUR = 3_600_000;

export interface PresetChoice {
  preset: SnoozePreset;
  label: string;
  /** When it ends on this browser's clock (the server computes the same in the time zone sent). */
  at: Date;
}

/**
 * The presets offered at `now`, on the browser's wall clock: in one hour, this evening 18:00 (not
 * from 18:00 on: the server refuses it then), tomorrow 09:00, next Monday 09:00 (a week ahead on a
 * Monday).
 */
export function snoozePresets(now: Date): PresetChoice[] {
  const y = now.getFullYear();
  const m = now.getMonth();
  const d = now.getDate();
  const evening = new Date(y, m, d, SNOOZE_HOURS.evening);
  const isoWeekday = now.getDay() || 7;
  const out: PresetChoice[] = [{ preset: 'one_hour', label: 'In 1 hour', at: new Date(now.getTime() + HOUR) }];
  if (evening > now) out.push({ preset: 'this_evening', label: 'This evening', at: evening });
  out.push({ preset: 'tomorrow', label: 'Tomorrow', at: new Date(y, m, d + 1, SNOOZE_HOURS.morning) });
  out.push({ preset: 'next_week', label: 'Next week', at: new Date(y, m, d + 8 - isoWeekday, SNOOZE_HOURS.morning) });
  return out;
}

/** The browser's IANA time zone, sent with a preset. */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

const pad = (n: number) => String(n).padStart(2, '0');
/** A date as a datetime-local input's value (local wall clock, minutes). */
export function toLocalInput(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The earliest and latest "Pick a time" values at `now`: the next minute, and the snooze limit (90 days). */
export function pickBounds(now: Date): { min: string; max: string } {
  const next = new Date(now.getTime() + 60_000);
  const last = new Date(now.getTime() + INBOX_LIMITS.snoozeMaxDays * 24 * HOUR);
  return { min: toLocalInput(next), max: toLocalInput(last) };
}

/** A datetime-local value as a time to snooze until, or why it cannot be one. */
export function parsePicked(value: string, now: Date): { until: Date } | { problem: string } {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value);
  if (!m) return { problem: 'Pick a date and a time.' };
  const until = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  if (Number.isNaN(until.getTime())) return { problem: 'Pick a date and a time.' };
  if (until.getTime() <= now.getTime()) return { problem: 'Pick a time in the future.' };
  if (until.getTime() > now.getTime() + INBOX_LIMITS.snoozeMaxDays * 24 * HOUR)
    return { problem: `Pick a time at most ${INBOX_LIMITS.snoozeMaxDays} days ahead.` };
  return { until };
}

/** Where a row was before a triage action. */
export interface Prior {
  id: string;
  state: string;
  /** When snoozed: until when (ms). */
  snoozedUntil?: number | undefined;
}

/** What undoing a triage action asks of the server: each row back where it was. */
export interface RestorePlan {
  toInbox: string[];
  toDone: string[];
  resnooze: { id: string; until: number }[];
}

/** A snooze ending this soon is not restored (the server would refuse a time in the past): the row goes to the Inbox. */
const RESNOOZE_MIN_MS = 5_000;

/**
 * Undo: rows that were in the Inbox go back there (MoveToInbox), done rows back to Done (MarkDone),
 * snoozed rows are snoozed again until their old time (to the Inbox when that time has come).
 */
export function restorePlan(prior: readonly Prior[], now: number): RestorePlan {
  const plan: RestorePlan = { toInbox: [], toDone: [], resnooze: [] };
  for (const p of prior) {
    if (p.state === 'done') plan.toDone.push(p.id);
    else if (p.state === 'snoozed' && p.snoozedUntil !== undefined && p.snoozedUntil > now + RESNOOZE_MIN_MS)
      plan.resnooze.push({ id: p.id, until: p.snoozedUntil });
    else plan.toInbox.push(p.id);
  }
  return plan;
}

export type TriageKind = 'done' | 'snooze' | 'inbox' | 'read' | 'unread';

/**
 * Which way `u` (and a row's read button) goes for these rows' read flags: mark read when any is
 * unread (a group, a selection), else mark unread. Undefined for no rows.
 */
export function readToggle(read: readonly boolean[]): 'read' | 'unread' | undefined {
  if (read.length === 0) return undefined;
  return read.some((r) => !r) ? 'read' : 'unread';
}

/** The toast of a triage action. */
export function triageText(kind: TriageKind, n: number, until?: string): string {
  const many = n === 1 ? '' : ` ${n}`;
  if (kind === 'done') return `Marked${many} done`;
  if (kind === 'inbox') return `Moved${many} to Inbox`;
  if (kind === 'read') return `Marked${many} read`;
  if (kind === 'unread') return `Marked${many} unread`;
  return `Snoozed${many} until ${until ?? 'later'}`;
}

const count = new Intl.NumberFormat('en-US');

/** "Mark all done" while it runs: "Marked 1,000 done…". */
export const markAllProgressText = (n: number): string => `Marked ${count.format(n)} done…`;

/** "Mark all done" finished: the count, and that it has no Undo. */
export const markAllDoneText = (n: number): string => (n === 0 ? 'Nothing to mark done' : `Marked ${count.format(n)} done (no Undo for Mark all done)`);

/** Ids in calls of at most `max` (MarkDone, MoveToInbox and MarkUnread take 1-500). */
export function chunks<T>(xs: readonly T[], max: number = INBOX_LIMITS.bulkIdsMax): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += max) out.push(xs.slice(i, i + max));
  return out;
}

// ---- keyboard shortcuts ----

export type Command = 'next' | 'prev' | 'open' | 'done' | 'snooze' | 'read' | 'select' | 'undo' | 'help' | 'clear' | 'search' | { go: InboxView };

/** The shortcuts, as the "Keyboard shortcuts" dialog lists them (a key sequence: keys one after the other). */
export const SHORTCUTS: readonly { keys: readonly (readonly string[])[]; what: string }[] = [
  { keys: [['j'], ['k']], what: 'Next / previous notification (a collapsed group is one)' },
  { keys: [['Enter'], ['o']], what: 'Open the notification' },
  { keys: [['e']], what: 'Done (the selected notifications, or the current one; on a group, all of it)' },
  { keys: [['h']], what: 'Snooze: choose when it comes back (on a group, all of it)' },
  { keys: [['x']], what: 'Select or unselect the current notification (or group); e, h and u then act on the selection' },
  { keys: [['u']], what: 'Mark read, or unread when already read (the selected notifications, or the current one; on a group, all of it)' },
  { keys: [['z']], what: 'Undo the last triage action' },
  { keys: [['g', 'i']], what: 'Go to Inbox' },
  { keys: [['g', 's']], what: 'Go to Snoozed' },
  { keys: [['g', 'd']], what: 'Go to Done' },
  { keys: [['g', 'a']], what: 'Go to All' },
  { keys: [['/']], what: 'Search: focus the search box (Enter searches, ↓ goes to the list, Esc in the box clears the search)' },
  { keys: [['Esc']], what: 'Clear the selection, close a menu' },
  { keys: [['?']], what: 'Show these shortcuts' },
];

const GO: Record<string, InboxView> = { i: 'inbox', s: 'snoozed', d: 'done', a: 'all' };
const SINGLE: Record<string, Command> = {
  j: 'next',
  k: 'prev',
  Enter: 'open',
  o: 'open',
  e: 'done',
  h: 'snooze',
  u: 'read',
  x: 'select',
  z: 'undo',
  '?': 'help',
  '/': 'search',
  Escape: 'clear',
};

/** The command a key names (`g` starts a sequence: the key after it, `afterG`, names the view). */
export function commandOf(key: string, afterG: boolean): Command | 'g' | undefined {
  if (afterG) {
    const view = GO[key];
    return view ? { go: view } : undefined;
  }
  if (key === 'g') return 'g';
  return SINGLE[key];
}

/** How long after `g` the second key of a sequence is waited for. */
export const SEQUENCE_MS = 1500;
