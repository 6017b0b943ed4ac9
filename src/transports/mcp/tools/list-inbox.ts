import { listInbox, ListInboxOutput } from '../../../domain/inbox/list-inbox.js';
import { INBOX_LIMITS } from '../../../domain/inbox/inbox.limits.js';
import type { ToolDefinition } from './tool.js';

export const listInboxTool: ToolDefinition = {
  name: 'list_inbox',
  title: 'List inbox',
  description:
    'Your own inbox notifications of one view, newest first: view `inbox` (default: not done, not snoozed), `snoozed`, `done` or `all`. ' +
    `Filters: unreadOnly, type (task, review, meeting, system); limit 1-${INBOX_LIMITS.toolPageMax} (default ${INBOX_LIMITS.toolPageDefault}). ` +
    'totalCount and unreadCount count every notification of that view matching the filters, not only the returned items. ' +
    'Each item has its state (inbox, snoozed, done) and snoozedUntil; an inbound event also deliveryId, eventType, severity, externalStatus and fireCount.',
  operation: listInbox,
  output: ListInboxOutput,
  readOnly: true,
};
