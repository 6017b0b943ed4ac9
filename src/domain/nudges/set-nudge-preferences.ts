// A user sets which severities nudge them, whether chat is on, their quiet hours (nudges below
// critical held back, one summary after them: quiet-hours.rules.ts) and whether an inbox row goes
// to Done when its sender resolves it, and whether the web app's Inbox view groups repeats; the
// spec leaves the per-severity push rule open.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { validationFailed } from '../errors.js';
import { SEVERITIES } from '../events/event.limits.js';
import { isTimeZone } from '../inbox/snooze.rules.js';
import { databaseTimeZone, savePreferences } from './nudges.repository.js';
import { preferencesView, type PreferencesView } from './preferences.view.js';
import { HH_MM, ISO_DAY_MAX, ISO_DAY_MIN, normalizeDays, type QuietHours } from './quiet-hours.rules.js';
import { NUDGE_LIMITS } from './nudges.limits.js';

const HhMm = z.string().regex(HH_MM, { error: 'must be HH:MM on a 24-hour clock (00:00-23:59)' });
const TIME_ZONE_PROBLEM = 'must be an IANA time zone such as Europe/Berlin';

export const QuietHoursInput = z.strictObject({
  start: HhMm,
  end: HhMm,
  time_zone: z
    .string()
    .max(NUDGE_LIMITS.timeZoneMax)
    .refine(isTimeZone, { error: TIME_ZONE_PROBLEM, params: { code: 'invalid_time_zone' } }),
  /** ISO days of the week the window starts on; empty = every day. */
  days: z
    .array(z.number().int().min(ISO_DAY_MIN).max(ISO_DAY_MAX))
    .max(ISO_DAY_MAX - ISO_DAY_MIN + 1)
    .default([]),
});

export const SetPreferencesInput = z
  .strictObject({
    /** Severities that nudge; an empty list turns nudges off (everything lands in the inbox only). */
    push_severities: z.array(z.enum(SEVERITIES)).max(SEVERITIES.length).optional(),
    chat_enabled: z.boolean().optional(),
    quiet_hours: QuietHoursInput.optional(),
    clear_quiet_hours: z.boolean().optional(),
    done_on_resolution: z.boolean().optional(),
    /** "Group repeats" in the web app's Inbox view. */
    group_inbox: z.boolean().optional(),
  })
  .superRefine((v, c) => {
    if (v.quiet_hours !== undefined && v.clear_quiet_hours === true)
      c.addIssue({ code: 'custom', path: ['clear_quiet_hours'], message: 'give quiet_hours or clear_quiet_hours, not both' });
  });

export const setNudgePreferences = defineOperation<z.infer<typeof SetPreferencesInput>, PreferencesView, AgentPrincipal>({
  name: 'nudges.set_preferences',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: false,
  input: SetPreferencesInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const sev = input.push_severities ? [...new Set(input.push_severities)] : undefined;
    const q = input.quiet_hours;
    let quietHours: QuietHours | null | undefined = input.clear_quiet_hours === true ? null : undefined;
    if (q) {
      // The database computes quiet hours on every publish: it must know the zone too.
      const timeZone = await databaseTimeZone(em, q.time_zone);
      if (timeZone === null) throw validationFailed([{ field: 'quiet_hours.time_zone', code: 'invalid_time_zone', message: TIME_ZONE_PROBLEM }]);
      quietHours = { start: q.start, end: q.end, timeZone, days: normalizeDays(q.days) };
    }
    await savePreferences(
      em,
      ctx.principal.userId,
      { pushSeverities: sev, chatEnabled: input.chat_enabled, quietHours, doneOnResolution: input.done_on_resolution, groupInbox: input.group_inbox },
      ctx.clock.now(),
    );
    return preferencesView(em, ctx.principal.userId);
  },
});
