// A user registers a browser push subscription (Web Push, RFC 8030/8291/8292) with their own agent
// token: the browser's PushSubscription JSON ({endpoint, keys: {p256dh, auth}}) after it subscribed
// with the service's VAPID public key (get-vapid-public-key.ts). The endpoint must be on a browser
// push service, and a user keeps at most MAX_PUSH_SUBSCRIPTIONS_PER_USER (push-subscription.rules.ts).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { MAX_PUSH_SUBSCRIPTIONS_PER_USER, pushEndpointIssue } from './push-subscription.rules.js';
import { countPushSubscriptions, savePushSubscription } from './nudges.repository.js';
import { NUDGE_LIMITS } from './nudges.limits.js';

const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+=*$/, { error: 'must be base64url' });

export const RegisterPushSubscriptionInput = z.strictObject({
  endpoint: z.string().min(1).max(NUDGE_LIMITS.receiverUrlMax),
  p256dh: base64url(NUDGE_LIMITS.pushP256dhMax),
  auth: base64url(NUDGE_LIMITS.pushAuthMax),
});

export interface RegisterPushSubscriptionOutput {
  subscriptionId: string;
  subscriptionCount: number;
  /** The oldest subscriptions removed to keep MAX_PUSH_SUBSCRIPTIONS_PER_USER; empty for a re-registered endpoint. */
  replacedSubscriptionIds: string[];
}

/**
 * `allowHttpHosts` (NUDGE_EGRESS_ALLOW_HOSTS): hosts reachable over plain http and on private
 * addresses, for local test receivers; `extraPushHosts` (PUSH_ENDPOINT_ALLOW_HOSTS): push service
 * hosts besides the known ones. Both empty in a usual production deployment.
 */
export const registerPushSubscriptionOperation = (opts: { allowHttpHosts: readonly string[]; extraPushHosts: readonly string[] }) =>
  defineOperation<z.infer<typeof RegisterPushSubscriptionInput>, RegisterPushSubscriptionOutput, AgentPrincipal>({
    name: 'nudges.register_push_subscription',
    auth: { kind: 'agent' },
    budget: 'agent',
    requiredScopes: ['write:inbox'],
    idempotent: false,
    input: RegisterPushSubscriptionInput,
    contextRules: (raw) => {
      const endpoint = (raw as { endpoint?: unknown } | null)?.endpoint;
      const issue = typeof endpoint === 'string' ? pushEndpointIssue(endpoint, opts) : null;
      return issue ? [issue] : [];
    },
    writes: true,
    handler: async (input, ctx) => {
      const { em } = ctx;
      const userId = ctx.principal.userId;
      const saved = await savePushSubscription(em, userId, input, ctx.clock.now(), MAX_PUSH_SUBSCRIPTIONS_PER_USER);
      return { subscriptionId: saved.id, subscriptionCount: await countPushSubscriptions(em, userId), replacedSubscriptionIds: saved.replacedIds };
    },
  });
