// `list_inbox` (SPEC C read tools, scope read:inbox): the caller's own notifications of one view
// (`inbox` by default, `snoozed`, `done`, `all`), newest first. totalCount and unreadCount count
// every row of that view matching the filters (type, unreadOnly), not only the returned page; they
// are read from per-user counters kept exact by the database (inbox_counters), so a call costs the
// same for 10 or 10,000 notifications. Always items, never groups.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { InboxQueryField } from './inbox-query.rules.js';
import type { AgentPrincipal } from '../principal.js';
import { listInboxView } from './inbox-view.repository.js';
import { INBOX_LIMITS, INBOX_VIEWS } from './inbox.limits.js';
import { InboxItem, NOTIFICATION_TYPES, toInboxItem } from './notification.view.js';

export const ListInboxInput = z.strictObject({
  view: z.enum(INBOX_VIEWS).default('inbox'),
  query: InboxQueryField,
  unreadOnly: z.boolean().optional(),
  type: z.enum(NOTIFICATION_TYPES).optional(),
  limit: z.number().int().min(1).max(INBOX_LIMITS.toolPageMax).default(INBOX_LIMITS.toolPageDefault),
});

export const ListInboxOutput = z.object({
  totalCount: z.number().int().min(0),
  unreadCount: z.number().int().min(0),
  /** Only with a query that matched more than INBOX_LIMITS.searchCountMax: the counts are that cap. */
  totalCountCapped: z.literal(true).optional(),
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
    const page = await listInboxView(
      ctx.em,
      {
        userId: ctx.principal.userId,
        view: input.view,
        query: input.query,
        unreadOnly: input.unreadOnly === true,
        severities: [],
        eventType: undefined,
        notificationType: input.type,
        after: undefined,
      },
      // No page token here: exactly `limit` rows, never the one more that tells a next page.
      input.limit - 1,
      true,
    );
    return {
      totalCount: page.total,
      unreadCount: page.unread,
      ...(page.capped ? { totalCountCapped: true as const } : {}),
      items: page.rows.slice(0, input.limit).map(toInboxItem),
    };
  },
});
