// The owner sets which of one of their inbound tokens' events nudge them (tokens.limits.ts
// NUDGE_THRESHOLDS: all, warn and above, critical only, never), within the severities their own
// preferences nudge for; the inbox always records the events. Another user's token id is not found
// and changes nothing. The change makes a new row version of the token, so a publish served from
// the principal cache is looked up afresh and decided with the new threshold.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { notFound } from '../errors.js';
import { setOwnTokenNudgeThresholdRow } from './own-tokens.repository.js';
import { ownOp } from './own-tokens.shared.js';
import { NUDGE_THRESHOLDS } from './tokens.limits.js';

export const SetOwnTokenNudgeThresholdInput = z.strictObject({
  token_id: z.uuid({ error: 'must be a UUID' }),
  nudge_threshold: z.enum(NUDGE_THRESHOLDS),
});

export const setOwnTokenNudgeThreshold = defineOperation<
  z.infer<typeof SetOwnTokenNudgeThresholdInput>,
  { tokenId: string; nudgeThreshold: (typeof NUDGE_THRESHOLDS)[number] },
  AgentPrincipal
>({
  name: 'tokens.set_own_nudge_threshold',
  ...ownOp,
  idempotent: true,
  writes: true,
  input: SetOwnTokenNudgeThresholdInput,
  handler: async ({ token_id, nudge_threshold }, ctx) => {
    if (!(await setOwnTokenNudgeThresholdRow(ctx.em, ctx.principal.userId, token_id, nudge_threshold))) throw notFound('token');
    return { tokenId: token_id.toLowerCase(), nudgeThreshold: nudge_threshold };
  },
});
