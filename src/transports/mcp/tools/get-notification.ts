import { getNotification, GetNotificationOutput } from '../../../domain/inbox/get-notification.js';
import type { ToolDefinition } from './tool.js';

export const getNotificationTool: ToolDefinition = {
  name: 'get_notification',
  title: 'Get notification',
  description: "One of your notifications in full, with its actor ({userId, email, name} or null) and target URL. Another user's id answers NOT_FOUND.",
  operation: getNotification,
  output: GetNotificationOutput,
  readOnly: true,
};
