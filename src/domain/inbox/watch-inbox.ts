// InboxService.WatchInbox, the domain half: `inbox.watch` authenticates the stream once (scope
// read:inbox, counted like any call) and names the inbox to subscribe to (ctx.ports.inboxFeed);
// `inbox.watch_read` reads the rows a change names, afresh, with the unread count, for the stream
// of an already authenticated caller. The transport owns the subscription's life (ready,
// heartbeats, the end on abort or drain): no timers here.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { type InboxItemView, toInboxItemView } from './inbox-item.view.js';
import { findOwnInboxItems, unreadCountOf } from './inbox-view.repository.js';

export const WatchInboxInput = z.strictObject({});

export const watchInbox = defineOperation<z.infer<typeof WatchInboxInput>, { userId: string }, AgentPrincipal>({
  name: 'inbox.watch',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:inbox'],
  idempotent: false,
  input: WatchInboxInput,
  handler: async (_input, ctx) => ({ userId: ctx.principal.userId }),
});

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
