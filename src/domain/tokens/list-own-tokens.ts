// The owner lists their own inbound tokens: never the values, but the callback secret, which is
// the owner's to see.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { iso } from '../timestamps.js';
import { listOwnTokenRows } from './own-tokens.repository.js';
import { ownOp } from './own-tokens.shared.js';

export interface OwnTokenView {
  tokenId: string;
  kind: string;
  label: string;
  status: string;
  displayPrefix: string;
  dailyLimit: number;
  integratorId: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  callbackSecret: string;
  note: string | null;
  /** Which of the token's events nudge (NUDGE_THRESHOLDS); `all` by default. */
  nudgeThreshold: string;
}

export const listOwnTokens = defineOperation<Record<string, never>, { items: OwnTokenView[] }, AgentPrincipal>({
  name: 'tokens.list_own',
  ...ownOp,
  idempotent: false,
  input: z.strictObject({}),
  handler: async (_input, ctx) => {
    const rows = await listOwnTokenRows(ctx.em, ctx.principal.userId);
    return {
      items: rows.map((r) => ({
        tokenId: r.id,
        kind: r.kind,
        label: r.label,
        status: r.status,
        displayPrefix: r.display_prefix,
        dailyLimit: r.daily_limit,
        integratorId: r.integrator_id,
        createdAt: iso(r.created_at),
        lastUsedAt: r.last_used_at === null ? null : iso(r.last_used_at),
        revokedAt: r.revoked_at === null ? null : iso(r.revoked_at),
        callbackSecret: r.callback_secret,
        note: r.note,
        nudgeThreshold: r.nudge_threshold,
      })),
    };
  },
});
