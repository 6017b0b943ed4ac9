// A user removes one of their browser push subscriptions, by id or by endpoint.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { countPushSubscriptions, deletePushSubscription } from './nudges.repository.js';
import { NUDGE_LIMITS } from './nudges.limits.js';

export const RemovePushSubscriptionInput = z
  .strictObject({ subscription_id: z.uuid({ error: 'must be a UUID' }).optional(), endpoint: z.string().min(1).max(NUDGE_LIMITS.receiverUrlMax).optional() })
  .refine((v) => v.subscription_id !== undefined || v.endpoint !== undefined, { error: 'give subscription_id or endpoint', path: ['subscription_id'] });

export const removePushSubscription = defineOperation<
  z.infer<typeof RemovePushSubscriptionInput>,
  { removed: boolean; subscriptionCount: number },
  AgentPrincipal
>({
  name: 'nudges.remove_push_subscription',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:inbox'],
  idempotent: false,
  input: RemovePushSubscriptionInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    const n = await deletePushSubscription(em, ctx.principal.userId, { id: input.subscription_id, endpoint: input.endpoint });
    return { removed: n > 0, subscriptionCount: await countPushSubscriptions(em, ctx.principal.userId) };
  },
});
