// ModerationService.ForwardHeldEvent (SPEC mode 2): the admin forwards a pending queue entry to a
// chosen user. This writes one notification for the target, with the admin as actor, the entry's
// (possibly edited) text and the original event type as a tag; it creates no delivery row for the
// target and queues no push or chat nudge. The target defaults to the sender's suggestion
// (recipient.value, else recipient_hint.email, else recipient_hint.user_id). Admin role; scope
// write:inbox. A forwarded or dismissed entry cannot be forwarded (aborted `invalid_state`).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError, notFound, validationFailed } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { addAnnouncedNotification } from '../inbox/announce-notification.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { User } from '../users/users.entity.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { type HeldEventView, suggestedEmail, toHeldEventView } from './held-event.view.js';
import { findHeldEvent, updateHeldEvent } from './moderation.repository.js';
import { USER_LIMITS } from '../users/users.limits.js';

export const ForwardHeldEventInput = z.strictObject({
  entry_id: z.uuid({ error: 'must be a UUID' }),
  /** The target user; default: the event's recipient suggestion. */
  email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax).optional(),
});

export const forwardHeldEvent = defineOperation<z.infer<typeof ForwardHeldEventInput>, HeldEventView, AgentPrincipal>({
  name: 'moderation.forward_held_event',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: true,
  writes: true,
  input: ForwardHeldEventInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    const em = ctx.em;
    const entry = await findHeldEvent(em, ctx.principal.userId, input.entry_id, true);
    if (!entry) throw notFound('queue entry');
    if (entry.status !== 'pending') throw new DomainError('conflict', `the entry is already ${entry.status}`, { code: 'invalid_state' });

    const email = input.email ?? suggestedEmail(entry);
    let target: User | null;
    if (email) target = await requireUserByEmail(em, email);
    else if (entry.recipient_hint?.user_id) {
      target = await em.findOne(User, { id: entry.recipient_hint.user_id });
      if (!target)
        throw new DomainError('unprocessable', 'the suggested recipient user_id names no user; pass email', {
          code: 'user_not_found',
          typeSlug: 'user-not-found',
          extra: { email: '' },
        });
    } else throw validationFailed([{ field: 'email', code: 'required', message: 'the event suggests no recipient email: name the target user' }]);
    if (target.status !== 'active') throw new DomainError('forbidden', `${target.email} is not active`, { code: 'user_inactive' });

    const now = ctx.clock.now();
    const n = addAnnouncedNotification(ctx, em, now, {
      userId: target.id,
      type: 'system',
      title: entry.title,
      summary: entry.summary,
      body: entry.body,
      targetUrl: entry.external_url,
      actorUserId: ctx.principal.userId,
      tags: [entry.event_type],
    });
    await updateHeldEvent(em, entry.id, {
      status: 'forwarded',
      forwarded_to_user_id: target.id,
      forwarded_at: now.toISOString(),
      notification_id: n.id,
      updated_at: now.toISOString(),
    });
    recordAudit(em, ctx, {
      action: 'moderation.event.forwarded',
      actorUserId: ctx.principal.userId,
      tokenId: ctx.principal.tokenId,
      targetType: 'moderation_entry',
      targetId: entry.id,
      summary: {
        delivery_id: entry.delivery_id,
        event_type: entry.event_type,
        forwarded_to_user_id: target.id,
        notification_id: n.id,
        edited: entry.edited_at !== null,
      },
    });
    return toHeldEventView((await findHeldEvent(em, ctx.principal.userId, entry.id))!);
  },
});
