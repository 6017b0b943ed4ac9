// `mark_notifications_done` (scope write:inbox; also InboxService.MarkDone): moves 1-500 of the
// caller's rows to Done (and read). Rows already done stay as they are and are not counted. Any
// id that is not the caller's answers not_found and changes nothing.
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { recordAudit } from '../audit/audit.js';
import { INBOX_AUDIT } from './inbox.audit.js';
import { markOwnRowsDone } from './inbox-state.repository.js';
import { announceChanged, NotificationIdsInput, requireOwnRows } from './triage.shared.js';

export const markNotificationsDone = defineOperation<NotificationIdsInput, { updatedCount: number }, AgentPrincipal>({
  name: 'inbox.mark_done',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: true,
  input: NotificationIdsInput,
  writes: true,
  handler: async ({ notificationIds }, ctx) => {
    await requireOwnRows(ctx, notificationIds);
    const changed = await markOwnRowsDone(ctx.em, ctx.principal.userId, notificationIds, ctx.clock.now());
    announceChanged(ctx, changed);
    recordAudit(ctx.em, ctx, {
      action: INBOX_AUDIT.done,
      actorUserId: ctx.principal.userId,
      tokenId: ctx.principal.tokenId,
      targetType: 'user',
      targetId: ctx.principal.userId,
      summary: { tool: 'mark_notifications_done', notificationIds: changed, updatedCount: changed.length },
    });
    return { updatedCount: changed.length };
  },
});
