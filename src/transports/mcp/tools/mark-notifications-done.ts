import { markNotificationsDone } from '../../../domain/inbox/mark-notifications-done.js';
import { INBOX_LIMITS } from '../../../domain/inbox/inbox.limits.js';
import { UpdatedCountOutput } from '../../../domain/inbox/triage.shared.js';
import type { ToolDefinition } from './tool.js';

export const markNotificationsDoneTool: ToolDefinition = {
  name: 'mark_notifications_done',
  title: 'Mark notifications done',
  description:
    `Moves 1-${INBOX_LIMITS.bulkIdsMax} of your notifications to Done (they leave the Inbox view and count as read). ` +
    'updatedCount counts those that were not done yet. Any id that is not yours answers NOT_FOUND and changes nothing. ' +
    'move_notifications_to_inbox undoes it.',
  operation: markNotificationsDone,
  output: UpdatedCountOutput,
  readOnly: false,
};
