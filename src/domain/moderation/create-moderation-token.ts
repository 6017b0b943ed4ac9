// An operator creates a moderation token for an admin (CLI `fluxdesk moderation-token create
// --owner E --label L [--daily-limit N]`).
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { createModerationTokenInTransaction, dailyLimit } from './moderation-tokens.shared.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { TOKEN_LIMITS } from '../tokens/tokens.limits.js';

export const CreateModerationTokenInput = z.strictObject({
  owner: z.email().max(USER_LIMITS.emailMax),
  label: z.string().trim().min(1).max(TOKEN_LIMITS.labelMax),
  note: z.string().max(TOKEN_LIMITS.noteMax).optional(),
  daily_limit: dailyLimit,
});

export const createModerationToken = defineOperation<z.infer<typeof CreateModerationTokenInput>, { tokenId: string; token: string }>({
  name: 'moderation.create_token',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: CreateModerationTokenInput,
  handler: async (input, ctx) => {
    const owner = await requireUserByEmail(ctx.em, input.owner);
    const created = await createModerationTokenInTransaction(
      ctx.em,
      ctx,
      owner,
      { label: input.label, note: input.note ?? null, dailyLimit: input.daily_limit },
      { actorUserId: owner.id },
    );
    return { tokenId: created.tokenId, token: created.token };
  },
});
