import { z } from 'zod';
import { SEVERITIES } from '../events/event.limits.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

/** SPEC ClaimTokenRequest. `severity_ceiling` is accepted and ignored (retired). */
export const ClaimTokenRequestSchema = z.strictObject({
  email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax),
  label: z.string().min(1).max(TOKEN_LIMITS.labelMax).optional(),
  severity_ceiling: z.enum(SEVERITIES).optional(),
  daily_limit: z.number().int().min(1).max(TOKEN_LIMITS.dailyLimitMax).default(TOKEN_LIMITS.claimDailyLimitDefault),
});
export type ClaimTokenRequest = z.infer<typeof ClaimTokenRequestSchema>;

export const ClaimedTokenSchema = z.strictObject({
  token: z.string(),
  tokenId: z.uuid(),
  ownerUserId: z.uuid(),
  expiresPriorAt: z.iso.datetime(),
});
