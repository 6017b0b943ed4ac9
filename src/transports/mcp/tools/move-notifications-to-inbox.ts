import { moveNotificationsToInbox } from '../../../domain/inbox/move-notifications-to-inbox.js';
import { INBOX_LIMITS } from '../../../domain/inbox/inbox.limits.js';
import { UpdatedCountOutput } from '../../../domain/inbox/triage.shared.js';
import type { ToolDefinition } from './tool.js';

export const moveNotificationsToInboxTool: ToolDefinition = {
  name: 'move_notifications_to_inbox',
  title: 'Move notifications to Inbox',
  description:
    `Brings 1-${INBOX_LIMITS.bulkIdsMax} of your done or snoozed notifications back to the Inbox view, at their old place (undoes done and snooze). ` +
    'updatedCount counts those that were not in the Inbox. Any id that is not yours answers NOT_FOUND and changes nothing.',
  operation: moveNotificationsToInbox,
  output: UpdatedCountOutput,
  readOnly: false,
};
