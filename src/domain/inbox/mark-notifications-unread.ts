// InboxService.MarkUnread (scope write:inbox): marks 1-500 of the caller's notifications unread
// again, whatever their view (the web app's `u` on a read item, and the undo of a mark read). Rows
// already unread are not counted. Any id that is not the caller's answers not_found and changes
// nothing. Open inboxes (WatchInbox) are told after the commit; the counters follow through their
// triggers. Answers how many changed and the caller's unread count after the change.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { recordAudit } from '../audit/audit.js';
import { INBOX_AUDIT } from './inbox.audit.js';
import { markOwnRowsUnread } from './inbox.repository.js';
import { unreadCountOf } from './inbox-view.repository.js';
import { announceChanged, NotificationIdsInput, requireOwnRows } from './triage.shared.js';

export const MarkNotificationsUnreadOutput = z.object({ updatedCount: z.number().int().min(0), unreadCount: z.number().int().min(0) });
export type MarkNotificationsUnreadResult = z.infer<typeof MarkNotificationsUnreadOutput>;

export const markNotificationsUnread = defineOperation<NotificationIdsInput, MarkNotificationsUnreadResult, AgentPrincipal>({
  name: 'inbox.mark_unread',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: true,
  input: NotificationIdsInput,
  writes: true,
  handler: async ({ notificationIds }, ctx) => {
    const userId = ctx.principal.userId;
    await requireOwnRows(ctx, notificationIds);
    const changed = await markOwnRowsUnread(ctx.em, userId, notificationIds, ctx.clock.now());
    announceChanged(ctx, changed);
    recordAudit(ctx.em, ctx, {
      action: INBOX_AUDIT.notificationsUnread,
      actorUserId: userId,
      tokenId: ctx.principal.tokenId,
      targetType: 'user',
      targetId: userId,
      summary: { notificationIds: changed, updatedCount: changed.length },
    });
    return { updatedCount: changed.length, unreadCount: await unreadCountOf(ctx.em, userId) };
  },
});
