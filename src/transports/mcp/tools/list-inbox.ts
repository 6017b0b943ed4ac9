import { listInbox, ListInboxOutput } from '../../../domain/inbox/list-inbox.js';
import type { ToolDefinition } from './tool.js';

export const listInboxTool: ToolDefinition = {
  name: 'list_inbox',
  title: 'List inbox',
  description:
    'Your own inbox notifications, newest first. Filters: unreadOnly, type (task, review, meeting, system); limit 1-200 (default 50). ' +
    'totalCount and unreadCount count every notification matching the filters, not only the returned items.',
  operation: listInbox,
  output: ListInboxOutput,
  readOnly: true,
};
