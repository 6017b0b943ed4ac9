// `get_notification` (SPEC C read tools, scope read:inbox): one of the caller's notifications with
// its actor and target URL. Another user's id answers not found, exactly like an unknown id.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { findOwnNotification } from './inbox.repository.js';
import { NotificationDetail, toNotificationDetail } from './notification.view.js';

export const GetNotificationInput = z.strictObject({ notificationId: z.uuid({ error: 'must be a UUID' }) });
export const GetNotificationOutput = NotificationDetail;

export const getNotification = defineOperation<z.infer<typeof GetNotificationInput>, NotificationDetail, AgentPrincipal>({
  name: 'inbox.get',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:inbox'],
  idempotent: false,
  input: GetNotificationInput,
  handler: async ({ notificationId }, ctx) => {
    const row = await findOwnNotification(ctx.em, ctx.principal.userId, notificationId);
    if (!row) throw notFound('notification');
    return toNotificationDetail(row);
  },
});
