// `mark_notification_read` (SPEC C write tools, scope write:inbox; also InboxService.MarkRead):
// own notifications only. `updated` is false when it was already read; another user's id answers
// not found and changes nothing. Watchers of the inbox (WatchInbox) are told after the commit.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { INBOX_AUDIT } from './inbox.audit.js';
import { markOwnNotificationRead } from './inbox.repository.js';

export const MarkNotificationReadInput = z.strictObject({ notificationId: z.uuid({ error: 'must be a UUID' }) });
export const MarkNotificationReadOutput = z.object({ updated: z.boolean() });
export type MarkNotificationReadResult = z.infer<typeof MarkNotificationReadOutput>;

export const markNotificationRead = defineOperation<z.infer<typeof MarkNotificationReadInput>, MarkNotificationReadResult, AgentPrincipal>({
  name: 'inbox.mark_read',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: true,
  input: MarkNotificationReadInput,
  writes: true,
  handler: async ({ notificationId }, ctx) => {
    const { em } = ctx;
    const outcome = await markOwnNotificationRead(em, ctx.principal.userId, notificationId, ctx.clock.now());
    if (outcome === 'absent') throw notFound('notification');
    const updated = outcome === 'updated';
    if (updated) ctx.afterCommit(() => ctx.ports.inboxFeed.changed(ctx.principal.userId, { notificationIds: [notificationId] }));
    recordAudit(em, ctx, {
      action: INBOX_AUDIT.notificationRead,
      actorUserId: ctx.principal.userId,
      tokenId: ctx.principal.tokenId,
      targetType: 'notification',
      targetId: notificationId,
      summary: { tool: 'mark_notification_read', notificationId, updated },
    });
    return { updated };
  },
});
