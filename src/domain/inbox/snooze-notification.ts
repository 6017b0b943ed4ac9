// `snooze_notification` (scope write:inbox; also InboxService.Snooze): one of the caller's rows
// leaves the Inbox until `until` (after now, at most 90 days ahead), or until a preset in a time
// zone (the web app's menu: one hour, this evening 18:00, tomorrow 09:00, next Monday 09:00). At
// its time the wake job (wake-snoozed-notifications.ts) brings it back to the top, unread, and
// nudges once. Another user's id answers not_found and changes nothing.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound, validationFailed } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { iso } from '../timestamps.js';
import { INBOX_AUDIT } from './inbox.audit.js';
import { snoozeOwnRow } from './inbox-state.repository.js';
import { isTimeZone, presetTime, SNOOZE_PRESETS, snoozeUntilProblem } from './snooze.rules.js';
import { announceChanged } from './triage.shared.js';

export const SnoozeNotificationInput = z
  .strictObject({
    notificationId: z.uuid({ error: 'must be a UUID' }),
    until: z.iso.datetime({ offset: true, error: 'must be an RFC 3339 date-time with an offset' }).optional(),
    preset: z.enum(SNOOZE_PRESETS).optional(),
    timeZone: z.string().refine(isTimeZone, { error: 'must be an IANA time zone such as Europe/Berlin' }).optional(),
  })
  .superRefine((v, c) => {
    if ((v.until === undefined) === (v.preset === undefined)) c.addIssue({ code: 'custom', path: ['until'], message: 'give either until or preset' });
    if (v.preset !== undefined && v.timeZone === undefined) c.addIssue({ code: 'custom', path: ['timeZone'], message: 'is required with preset' });
  });
export type SnoozeNotificationInput = z.infer<typeof SnoozeNotificationInput>;

export const SnoozeNotificationOutput = z.object({ notificationId: z.uuid(), snoozedUntil: z.iso.datetime({ offset: true }) });

export const snoozeNotification = defineOperation<SnoozeNotificationInput, z.infer<typeof SnoozeNotificationOutput>, AgentPrincipal>({
  name: 'inbox.snooze',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: true,
  input: SnoozeNotificationInput,
  writes: true,
  handler: async (input, ctx) => {
    const now = ctx.clock.now();
    const until = input.until !== undefined ? new Date(input.until) : presetTime(input.preset!, now, input.timeZone!);
    if (until === undefined)
      throw validationFailed([{ field: 'preset', message: 'this evening has already begun: pick another time', code: 'invalid_preset' }]);
    const problem = snoozeUntilProblem(until, now);
    if (problem) throw validationFailed([{ field: 'until', message: problem, code: 'invalid_snooze_time' }]);
    const id = input.notificationId.toLowerCase();
    if (!(await snoozeOwnRow(ctx.em, ctx.principal.userId, id, until, now))) throw notFound('notification');
    announceChanged(ctx, [id]);
    recordAudit(ctx.em, ctx, {
      action: INBOX_AUDIT.snoozed,
      actorUserId: ctx.principal.userId,
      tokenId: ctx.principal.tokenId,
      targetType: 'notification',
      targetId: id,
      summary: { tool: 'snooze_notification', notificationId: id, snoozedUntil: until.toISOString() },
    });
    return { notificationId: id, snoozedUntil: iso(until) };
  },
});
