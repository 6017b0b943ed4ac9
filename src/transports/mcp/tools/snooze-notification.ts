import { snoozeNotification, SnoozeNotificationOutput } from '../../../domain/inbox/snooze-notification.js';
import { INBOX_LIMITS } from '../../../domain/inbox/inbox.limits.js';
import type { ToolDefinition } from './tool.js';

export const snoozeNotificationTool: ToolDefinition = {
  name: 'snooze_notification',
  title: 'Snooze notification',
  description:
    `Hides one of your notifications from the Inbox view until \`until\` (an RFC 3339 date-time after now, at most ${INBOX_LIMITS.snoozeMaxDays} days ahead), ` +
    'or until a preset (one_hour, this_evening = 18:00, tomorrow = 09:00, next_week = Monday 09:00) in `timeZone` (IANA, e.g. Europe/Berlin). ' +
    'At that time it comes back to the top of the Inbox, unread, and you are nudged once. Snoozing a snoozed or done notification sets the new time. ' +
    "Another user's id answers NOT_FOUND and changes nothing.",
  operation: snoozeNotification,
  output: SnoozeNotificationOutput,
  readOnly: false,
};
