import { waitForInbox, WaitForInboxOutput } from '../../../domain/inbox/wait-for-inbox.js';
import { INBOX_LIMITS } from '../../../domain/inbox/inbox.limits.js';
import type { ToolDefinition } from './tool.js';

export const waitForInboxTool: ToolDefinition = {
  name: 'wait_for_inbox',
  title: 'Wait for inbox',
  description:
    'Waits for your Inbox instead of polling. Without `after`: answers at once with {items: [], cursor}. With `after` (a cursor it returned): ' +
    'answers as soon as an item is new, back from snooze or changed in the Inbox view since that cursor (items as list_inbox gives them, newest first), ' +
    `or with no items after timeoutSeconds (1-${INBOX_LIMITS.waitSecondsMax}, default ${INBOX_LIMITS.waitSecondsDefault}). Call again with the new cursor.`,
  operation: waitForInbox,
  output: WaitForInboxOutput,
  readOnly: true,
};
