// InboxService.MarkRead: marks the row read through the one mark-read operation
// (mark-notification-read.ts: own rows only, idempotent, audited, watchers told after the commit),
// then answers the row as it now stands and the caller's unread count. Another user's id answers
// not_found and changes nothing. Scope write:inbox.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { type InboxItemView, NotificationIdField, toInboxItemView } from './inbox-item.view.js';
import { findOwnInboxItems, unreadCountOf } from './inbox-view.repository.js';
import { markNotificationRead } from './mark-notification-read.js';

export const MarkInboxItemReadInput = z.strictObject({ notification_id: NotificationIdField });

export const markInboxItemRead = defineOperation<z.infer<typeof MarkInboxItemReadInput>, { item: InboxItemView; unreadCount: number }, AgentPrincipal>({
  name: 'inbox.mark_item_read',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: true,
  input: MarkInboxItemReadInput,
  handler: async ({ notification_id }, ctx) => {
    const userId = ctx.principal.userId;
    await ctx.call(markNotificationRead, { notificationId: notification_id });
    const [row] = await findOwnInboxItems(ctx.em, userId, { notificationIds: [notification_id], deliveryIds: [] });
    return { item: toInboxItemView(row!), unreadCount: await unreadCountOf(ctx.em, userId) };
  },
});
