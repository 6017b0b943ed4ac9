// `list_inbox` (SPEC C read tools, scope read:inbox): the caller's own notifications, newest
// first. totalCount and unreadCount count every row matching the filters (type, unreadOnly),
// not only the returned page; they are read from per-user counters kept exact by the database
// (inbox_counters), so a call costs the same for 10 or 10,000 notifications.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { listInboxWithCounts } from './inbox.repository.js';
import { InboxItem, NOTIFICATION_TYPES, toInboxItem } from './notification.view.js';

export const LIST_INBOX_DEFAULT_LIMIT = 50;
export const LIST_INBOX_MAX_LIMIT = 200;

export const ListInboxInput = z.strictObject({
  unreadOnly: z.boolean().optional(),
  type: z.enum(NOTIFICATION_TYPES).optional(),
  limit: z.number().int().min(1).max(LIST_INBOX_MAX_LIMIT).default(LIST_INBOX_DEFAULT_LIMIT),
});

export const ListInboxOutput = z.object({
  totalCount: z.number().int().min(0),
  unreadCount: z.number().int().min(0),
  items: z.array(InboxItem),
});
export type ListInboxResult = z.infer<typeof ListInboxOutput>;

export const listInbox = defineOperation<z.infer<typeof ListInboxInput>, ListInboxResult, AgentPrincipal>({
  name: 'inbox.list',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:inbox'],
  idempotent: false,
  input: ListInboxInput,
  handler: async (input, ctx) => {
    const filter = { userId: ctx.principal.userId, type: input.type, unreadOnly: input.unreadOnly };
    const page = await listInboxWithCounts(ctx.em, filter, input.limit);
    return { totalCount: page.total, unreadCount: page.unread, items: page.rows.map(toInboxItem) };
  },
});
