import { markNotificationRead, MarkNotificationReadOutput } from '../../../domain/inbox/mark-notification-read.js';
import type { ToolDefinition } from './tool.js';

export const markNotificationReadTool: ToolDefinition = {
  name: 'mark_notification_read',
  title: 'Mark notification read',
  description: "Marks one of your notifications read. {updated: false} when it was already read; another user's id answers NOT_FOUND and changes nothing.",
  operation: markNotificationRead,
  output: MarkNotificationReadOutput,
  readOnly: false,
};
