// What the triage operations share: the ids input (1-500 distinct notification ids), the check
// that every id is the caller's (another user's id is not found and the call changes nothing),
// and telling open inboxes what changed.
import type { EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import { recordAudit } from '../audit/audit.js';
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

/**
 * A triage operation on 1-500 of the caller's rows (done, back to the Inbox, unread): every id must
 * be the caller's (else not_found, nothing changed); `change` returns the ids it actually changed,
 * which open inboxes are told of and the audit row lists. `tool`: the MCP tool it serves, named in
 * the audit row (none for a web-only operation); `more`: what the answer adds to `updatedCount`,
 * read after the change.
 */
export function defineBulkTriage<More extends Record<string, unknown> = Record<never, never>>(o: {
  name: string;
  tool?: string;
  audit: string;
  change: (em: EntityManager, userId: string, ids: readonly string[], now: Date) => Promise<string[]>;
  more?: (em: EntityManager, userId: string) => Promise<More>;
}) {
  return defineOperation<NotificationIdsInput, { updatedCount: number } & More, AgentPrincipal>({
    name: o.name,
    auth: { kind: 'agent' },
    budget: 'agent',
    requiredScopes: ['write:inbox'],
    idempotent: true,
    input: NotificationIdsInput,
    writes: true,
    handler: async ({ notificationIds }, ctx) => {
      const userId = ctx.principal.userId;
      await requireOwnRows(ctx, notificationIds);
      const changed = await o.change(ctx.em, userId, notificationIds, ctx.clock.now());
      announceChanged(ctx, changed);
      recordAudit(ctx.em, ctx, {
        action: o.audit,
        actorUserId: userId,
        tokenId: ctx.principal.tokenId,
        targetType: 'user',
        targetId: userId,
        summary: { ...(o.tool === undefined ? {} : { tool: o.tool }), notificationIds: changed, updatedCount: changed.length },
      });
      const more = o.more ? await o.more(ctx.em, userId) : ({} as More);
      return { updatedCount: changed.length, ...more };
    },
  });
}
