// User capabilities: named grants beyond the organisation role. The only one today is
// `code.repo.bind` (SPEC C bind_project_repository: "or the `code.repo.bind` capability"): its
// holder may bind and unbind repositories in every project they can see. Operators grant and
// revoke it (operator operations; no agent tool hands out capabilities).
import type { EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { recordAudit } from '../audit/audit.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { CAPABILITIES, grantCapability, revokeCapability } from './repositories.repository.js';
import { USER_LIMITS } from '../users/users.limits.js';

const CapabilityInput = z.strictObject({ email: z.email().max(USER_LIMITS.emailMax), capability: z.enum(CAPABILITIES) });
type CapabilityInput = z.infer<typeof CapabilityInput>;

export interface CapabilityResult {
  userId: string;
  capability: string;
  changed: boolean;
}

/** Grant and revoke differ only in the change applied and the audit action. */
function capabilityOperation(
  name: string,
  action: string,
  apply: (em: EntityManager, userId: string, capability: CapabilityInput['capability'], now: Date) => Promise<boolean>,
) {
  return defineOperation<CapabilityInput, CapabilityResult>({
    name,
    auth: { kind: 'system' },
    budget: null,
    idempotent: true,
    input: CapabilityInput,
    writes: true,
    handler: async (input, ctx) => {
      const { em } = ctx;
      const user = await requireUserByEmail(em, input.email);
      const changed = await apply(em, user.id, input.capability, ctx.clock.now());
      if (changed) recordAudit(em, ctx, { action, targetType: 'user', targetId: user.id, summary: { capability: input.capability } });
      return { userId: user.id, capability: input.capability, changed };
    },
  });
}

export const grantUserCapability = capabilityOperation('users.grant_capability', 'users.capability.granted', grantCapability);
export const revokeUserCapability = capabilityOperation('users.revoke_capability', 'users.capability.revoked', (em, userId, capability) =>
  revokeCapability(em, userId, capability),
);
