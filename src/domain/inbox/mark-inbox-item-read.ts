// InboxService.MarkRead: one of the caller's notifications read (idempotent: an already read row
// keeps its first read time). Another user's id answers not_found and changes nothing. Returns the
// row as it now stands and the caller's unread count; watchers of the inbox are told after the
// commit. Scope write:inbox.
import { z } from 'zod';
import { recordAudit } from '../audit/audit.js';
import { defineOperation, type AgentPrincipal } from '../context.js';
import { notFound } from '../errors.js';
import { INBOX_AUDIT } from './inbox.audit.js';
import { markOwnNotificationRead } from './inbox.repository.js';
import { type InboxItemView, NotificationIdField, toInboxItemView } from './inbox-item.view.js';
import { findOwnInboxItems, unreadCountOf } from './inbox-view.repository.js';

export const MarkInboxItemReadInput = z.strictObject({ notification_id: NotificationIdField });

export const markInboxItemRead = defineOperation<z.infer<typeof MarkInboxItemReadInput>, { item: InboxItemView; unreadCount: number }, AgentPrincipal>({
  name: 'inbox.mark_item_read',
  auth: { kind: 'agent' },
  rateLimited: true,
  requiredScopes: ['write:inbox'],
  idempotent: true,
  writes: true,
  input: MarkInboxItemReadInput,
  handler: async ({ notification_id }, ctx) => {
    const userId = ctx.principal.userId;
    const outcome = await markOwnNotificationRead(ctx.em, userId, notification_id, ctx.clock.now());
    if (outcome === 'absent') throw notFound('notification');
    if (outcome === 'updated') {
      recordAudit(ctx.em, ctx, {
        action: INBOX_AUDIT.notificationRead,
        actorUserId: userId,
        tokenId: ctx.principal.tokenId,
        targetType: 'notification',
        targetId: notification_id,
        summary: { rpc: 'InboxService.MarkRead', notificationId: notification_id, updated: true },
      });
      ctx.afterCommit(() => ctx.ports.inboxFeed.changed(userId, { notificationIds: [notification_id] }));
    }
    const [row] = await findOwnInboxItems(ctx.em, userId, { notificationIds: [notification_id], deliveryIds: [] });
    return { item: toInboxItemView(row!), unreadCount: await unreadCountOf(ctx.em, userId) };
  },
});
