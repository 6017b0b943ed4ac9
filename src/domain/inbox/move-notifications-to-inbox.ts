// `move_notifications_to_inbox` (scope write:inbox; also InboxService.MoveToInbox): brings 1-500
// of the caller's done or snoozed rows back to the Inbox, at their old place (undoes done and
// snooze). Rows already in the Inbox are not counted. Any id that is not the caller's answers
// not_found and changes nothing.
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { recordAudit } from '../audit/audit.js';
import { INBOX_AUDIT } from './inbox.audit.js';
import { moveOwnRowsToInbox } from './inbox-state.repository.js';
import { announceChanged, NotificationIdsInput, requireOwnRows } from './triage.shared.js';

export const moveNotificationsToInbox = defineOperation<NotificationIdsInput, { updatedCount: number }, AgentPrincipal>({
  name: 'inbox.move_to_inbox',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: true,
  input: NotificationIdsInput,
  writes: true,
  handler: async ({ notificationIds }, ctx) => {
    await requireOwnRows(ctx, notificationIds);
    const changed = await moveOwnRowsToInbox(ctx.em, ctx.principal.userId, notificationIds, ctx.clock.now());
    announceChanged(ctx, changed);
    recordAudit(ctx.em, ctx, {
      action: INBOX_AUDIT.movedToInbox,
      actorUserId: ctx.principal.userId,
      tokenId: ctx.principal.tokenId,
      targetType: 'user',
      targetId: ctx.principal.userId,
      summary: { tool: 'move_notifications_to_inbox', notificationIds: changed, updatedCount: changed.length },
    });
    return { updatedCount: changed.length };
  },
});
