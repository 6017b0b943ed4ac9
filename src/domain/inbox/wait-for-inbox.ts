// `wait_for_inbox` (scope read:inbox): an agent waits for its person's Inbox instead of polling.
// Without `after` it answers at once with a cursor; with `after` it answers as soon as an item is
// new, back from snooze or changed in the Inbox view since that cursor, or with no items when
// `timeoutSeconds` (1-7, inside the 8-second gateway timeout) pass. The feed subscription is made
// before the rows are read, so nothing committed in between is missed; while it waits, the call
// holds no database connection (the feed is Redis pub/sub, or in process when embedded).
import { Buffer } from 'node:buffer';
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { inboxChangesSince, ownInboxRowsOf } from './inbox-view.repository.js';
import { INBOX_LIMITS } from './inbox.limits.js';
import { InboxItem, toInboxItem } from './notification.view.js';

const CURSOR_PREFIX = 'w1|';

export const encodeWaitCursor = (at: Date): string => Buffer.from(`${CURSOR_PREFIX}${at.toISOString()}`, 'utf8').toString('base64url');

/** The time a cursor names, or undefined when it is not one this service made. */
export function decodeWaitCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(CURSOR_PREFIX)) return undefined;
  const at = text.slice(CURSOR_PREFIX.length);
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(at) && !Number.isNaN(Date.parse(at)) ? at : undefined;
}

export const WaitForInboxInput = z.strictObject({
  after: z
    .string()
    .transform((c, ctx) => {
      const at = decodeWaitCursor(c);
      if (at) return at;
      ctx.addIssue({ code: 'custom', message: 'is not a cursor of wait_for_inbox (use the cursor it returned)', params: { code: 'invalid_cursor' } });
      return z.NEVER;
    })
    .optional(),
  timeoutSeconds: z.number().int().min(1).max(INBOX_LIMITS.waitSecondsMax).default(INBOX_LIMITS.waitSecondsDefault),
});

export const WaitForInboxOutput = z.object({ items: z.array(InboxItem), cursor: z.string() });
export type WaitForInboxResult = z.infer<typeof WaitForInboxOutput>;

export const waitForInbox = defineOperation<z.infer<typeof WaitForInboxInput>, WaitForInboxResult, AgentPrincipal>({
  name: 'inbox.wait',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:inbox'],
  idempotent: false,
  input: WaitForInboxInput,
  handler: async (input, ctx) => {
    const userId = ctx.principal.userId;
    const since = input.after;
    if (since === undefined) return { items: [], cursor: encodeWaitCursor(ctx.clock.now()) };
    const sub = ctx.ports.inboxFeed.subscribe(userId, { closeAfterMs: input.timeoutSeconds * 1000 });
    try {
      // Redis away: no live changes, the rows read now still answer.
      await sub.ready.catch(() => undefined);
      const cursorAt = ctx.clock.now();
      const changed = await inboxChangesSince(ctx.em, userId, since, INBOX_LIMITS.toolPageMax);
      if (changed.length > 0) return { items: changed.map(toInboxItem), cursor: encodeWaitCursor(cursorAt) };
      for await (const batch of sub) {
        const rows = await ownInboxRowsOf(ctx.em, userId, { notificationIds: batch.notificationIds, deliveryIds: batch.deliveryIds });
        if (rows.length > 0) return { items: rows.map(toInboxItem), cursor: encodeWaitCursor(ctx.clock.now()) };
      }
      return { items: [], cursor: encodeWaitCursor(cursorAt) };
    } finally {
      sub.close();
    }
  },
});
