// `mark_all_notifications_read` (SPEC C write tools, scope write:inbox; also InboxService.MarkAllRead):
// every unread notification of the caller, in one statement. Watchers of the inbox (WatchInbox) are
// told which rows after the commit.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { recordAudit } from '../audit/audit.js';
import { INBOX_AUDIT } from './inbox.audit.js';
import { markAllOwnNotificationsRead } from './inbox.repository.js';

export const MarkAllNotificationsReadInput = z.strictObject({});
export const MarkAllNotificationsReadOutput = z.object({ updatedCount: z.number().int().min(0) });
export type MarkAllNotificationsReadResult = z.infer<typeof MarkAllNotificationsReadOutput>;

export const markAllNotificationsRead = defineOperation<z.infer<typeof MarkAllNotificationsReadInput>, MarkAllNotificationsReadResult, AgentPrincipal>({
  name: 'inbox.mark_all_read',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: true,
  input: MarkAllNotificationsReadInput,
  writes: true,
  handler: async (_input, ctx) => {
    const { em } = ctx;
    const userId = ctx.principal.userId;
    const ids = await markAllOwnNotificationsRead(em, userId, ctx.clock.now());
    const updatedCount = ids.length;
    if (ids.length > 0) ctx.afterCommit(() => ctx.ports.inboxFeed.changed(userId, { notificationIds: ids }));
    recordAudit(em, ctx, {
      action: INBOX_AUDIT.allNotificationsRead,
      actorUserId: ctx.principal.userId,
      tokenId: ctx.principal.tokenId,
      targetType: 'user',
      targetId: ctx.principal.userId,
      summary: { tool: 'mark_all_notifications_read', updatedCount },
    });
    return { updatedCount };
  },
});
