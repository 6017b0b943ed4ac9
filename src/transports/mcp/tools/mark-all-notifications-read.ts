import { markAllNotificationsRead, MarkAllNotificationsReadOutput } from '../../../domain/inbox/mark-all-notifications-read.js';
import type { ToolDefinition } from './tool.js';

export const markAllNotificationsReadTool: ToolDefinition = {
  name: 'mark_all_notifications_read',
  title: 'Mark all notifications read',
  description: 'Marks every unread notification of yours read; returns {updatedCount}.',
  operation: markAllNotificationsRead,
  output: MarkAllNotificationsReadOutput,
  readOnly: false,
};
