// InboxService.MarkAllRead: every unread notification of the caller read, in one statement;
// reports how many changed. Watchers of the inbox are told which rows after the commit.
// Scope write:inbox.
import { z } from 'zod';
import { recordAudit } from '../audit/audit.js';
import { defineOperation, type AgentPrincipal } from '../context.js';
import { INBOX_AUDIT } from './inbox.audit.js';
import { markAllOwnRead } from './inbox-view.repository.js';

export const MarkInboxAllReadInput = z.strictObject({});

export const markInboxAllRead = defineOperation<z.infer<typeof MarkInboxAllReadInput>, { markedCount: number }, AgentPrincipal>({
  name: 'inbox.mark_all_items_read',
  auth: { kind: 'agent' },
  rateLimited: true,
  requiredScopes: ['write:inbox'],
  idempotent: true,
  writes: true,
  input: MarkInboxAllReadInput,
  handler: async (_input, ctx) => {
    const userId = ctx.principal.userId;
    const ids = await markAllOwnRead(ctx.em, userId, ctx.clock.now());
    recordAudit(ctx.em, ctx, {
      action: INBOX_AUDIT.allNotificationsRead,
      actorUserId: userId,
      tokenId: ctx.principal.tokenId,
      targetType: 'user',
      targetId: userId,
      summary: { rpc: 'InboxService.MarkAllRead', updatedCount: ids.length },
    });
    if (ids.length > 0) ctx.afterCommit(() => ctx.ports.inboxFeed.changed(userId, { notificationIds: ids }));
    return { markedCount: ids.length };
  },
});
