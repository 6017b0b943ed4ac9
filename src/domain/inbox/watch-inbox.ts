// InboxService.WatchInbox, the domain half: `inbox.watch` authenticates the stream once (scope
// read:inbox, counted like any call) and names the inbox to subscribe to (ctx.ports.inboxFeed);
// the rows a change names are read by watch-inbox-read.ts. The transport owns the subscription's
// life (ready, heartbeats, the end on abort or drain): no timers here.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';

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
