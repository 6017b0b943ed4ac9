// What the triage operations share: the ids input (1-500 distinct notification ids), the check
// that every id is the caller's (another user's id is not found and the call changes nothing),
// and telling open inboxes what changed.
import { z } from 'zod';
import type { OpContext } from '../context.js';
import { notFound } from '../errors.js';
import type { AgentPrincipal } from '../principal.js';
import { countOwnRows } from './inbox-state.repository.js';
import { INBOX_LIMITS } from './inbox.limits.js';

export const NotificationIdsInput = z.strictObject({
  notificationIds: z
    .array(z.uuid({ error: 'must be a UUID' }))
    .min(1)
    .max(INBOX_LIMITS.bulkIdsMax)
    .transform((ids) => [...new Set(ids.map((id) => id.toLowerCase()))]),
});
export type NotificationIdsInput = z.infer<typeof NotificationIdsInput>;

export const UpdatedCountOutput = z.object({ updatedCount: z.number().int().min(0) });

/** Throws not_found (nothing changed) unless every id is one of the caller's rows; locks them. */
export async function requireOwnRows(ctx: OpContext<AgentPrincipal>, ids: readonly string[]): Promise<void> {
  if ((await countOwnRows(ctx.em, ctx.principal.userId, ids)) !== ids.length) throw notFound('notification');
}

/** After the commit, open inboxes of the caller read these rows afresh. */
export function announceChanged(ctx: OpContext<AgentPrincipal>, ids: readonly string[]): void {
  if (ids.length > 0) ctx.afterCommit(() => ctx.ports.inboxFeed.changed(ctx.principal.userId, { notificationIds: ids }));
}
