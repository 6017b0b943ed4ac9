// InboxService.GetInboxItem: one of the caller's notifications with every event field (the web
// app's deep link /inbox/<id>). Another user's id answers not_found exactly like an unknown id
// (the statement filters on the owner). Scope read:inbox.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { type InboxItemView, NotificationIdField, toInboxItemView } from './inbox-item.view.js';
import { findOwnInboxItems } from './inbox-view.repository.js';

export const GetInboxItemInput = z.strictObject({ notification_id: NotificationIdField });

export const getInboxItem = defineOperation<z.infer<typeof GetInboxItemInput>, InboxItemView, AgentPrincipal>({
  name: 'inbox.get_item',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:inbox'],
  idempotent: false,
  input: GetInboxItemInput,
  handler: async ({ notification_id }, ctx) => {
    const [row] = await findOwnInboxItems(ctx.em, ctx.principal.userId, { notificationIds: [notification_id], deliveryIds: [] });
    if (!row) throw notFound('notification');
    return toInboxItemView(row);
  },
});
