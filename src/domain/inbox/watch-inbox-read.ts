// `inbox.watch_read`: the rows a WatchInbox change names, read afresh, with the unread count, for
// the stream of a caller `inbox.watch` (watch-inbox.ts) already authenticated.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { type InboxItemView, toInboxItemView } from './inbox-item.view.js';
import { findOwnInboxItems, unreadCountOf } from './inbox-view.repository.js';

/** Ids a feed batch may name at once (a mark-all-read of more is read in several calls). */
export const WATCH_READ_MAX_IDS = 500;

export const WatchReadInput = z.strictObject({
  notification_ids: z.array(z.uuid()).max(WATCH_READ_MAX_IDS).default([]),
  delivery_ids: z.array(z.uuid()).max(WATCH_READ_MAX_IDS).default([]),
});

/**
 * Part of the one WatchInbox call that `inbox.watch` counted: not counted again per change (a busy
 * inbox would otherwise use up the caller's budget with its own stream). Rows of other users are
 * never read (the statement filters on the caller), whatever ids the feed carried.
 */
export const watchInboxRead = defineOperation<z.infer<typeof WatchReadInput>, { items: InboxItemView[]; unreadCount: number }, AgentPrincipal>({
  name: 'inbox.watch_read',
  auth: { kind: 'agent' },
  budget: null,
  requiredScopes: ['read:inbox'],
  idempotent: false,
  input: WatchReadInput,
  handler: async (input, ctx) => {
    const userId = ctx.principal.userId;
    const rows = await findOwnInboxItems(ctx.em, userId, { notificationIds: input.notification_ids, deliveryIds: input.delivery_ids });
    return { items: rows.map(toInboxItemView), unreadCount: await unreadCountOf(ctx.em, userId) };
  },
});
