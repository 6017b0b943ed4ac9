// The caller's nudges that used up their attempts (the dead state of the job queue), newest first.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { iso } from '../timestamps.js';
import { listFailedNudges as listFailed } from './nudges.repository.js';
import { NUDGE_LIMITS } from './nudges.limits.js';

export interface FailedNudgeView {
  deliveryId: string;
  channel: 'push' | 'chat';
  attempts: number;
  lastError: string;
  failedAt: string;
  title: string | null;
  severity: string | null;
}

export const listFailedNudges = defineOperation<{ limit: number }, { items: FailedNudgeView[] }, AgentPrincipal>({
  name: 'nudges.list_failed',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['read:inbox'],
  idempotent: false,
  input: z.strictObject({ limit: z.number().int().min(1).max(NUDGE_LIMITS.failedListMax).default(NUDGE_LIMITS.failedListDefault) }),
  handler: async (input, ctx) => {
    const rows = await listFailed(ctx.em, ctx.principal.userId, input.limit);
    return {
      items: rows.map((r) => ({
        deliveryId: r.delivery_id,
        channel: r.channel,
        attempts: Number(r.attempts),
        lastError: r.last_error,
        failedAt: iso(r.failed_at),
        title: r.title,
        severity: r.severity,
      })),
    };
  },
});
