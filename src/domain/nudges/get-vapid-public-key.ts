// The service's VAPID public key, which a browser subscribes to push with before it registers the
// subscription (register-push-subscription.ts).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { getServiceKey } from './nudges.repository.js';

/** The applicationServerKey a browser subscribes with (generated on first start, shared by all processes). */
export const getVapidPublicKey = defineOperation<Record<string, never>, { publicKey: string }, AgentPrincipal>({
  name: 'nudges.get_vapid_public_key',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:inbox'],
  idempotent: false,
  input: z.strictObject({}),
  handler: async (_input, ctx) => {
    const key = await getServiceKey(ctx.em, VAPID_KEY_NAME);
    if (!key) throw new DomainError('unavailable', 'push keys are not generated yet; retry later', { code: 'unavailable', retryAfterSeconds: 1 });
    return { publicKey: key.publicKey };
  },
});

/** Row name of the VAPID key pair in service_keys (infra/push generates it). */
export const VAPID_KEY_NAME = 'vapid';
