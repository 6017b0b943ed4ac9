// Self-service personal token (mode 1): owner creates it, value shown once, a callback signing
// secret is generated with it. Self-service tokens belong to the built-in `personal` integrator,
// so their allowed event prefix is `personal.`.
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/core';
import { defineOperation, type OpContext } from '../context.js';
import { ensureIntegrator, PERSONAL_INTEGRATOR } from './integrators.repository.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { DomainError } from '../errors.js';
import { auditTokenCreated, createInboundTokenRow } from './new-inbound-token.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { SELF_SERVICE_DAILY_LIMITS, TOKEN_LIMITS } from './tokens.limits.js';

/** A token's free-text note (self-service and operator creation alike). */
export const TokenNote = z.string().max(TOKEN_LIMITS.noteMax);

export const CreatePersonalTokenInput = z.strictObject({
  email: z.email().max(USER_LIMITS.emailMax),
  label: z.string().min(1).max(TOKEN_LIMITS.labelMax),
  note: TokenNote.optional(),
  daily_limit: z
    .number()
    .int()
    .refine((n) => (SELF_SERVICE_DAILY_LIMITS as readonly number[]).includes(n), {
      error: `must be one of ${SELF_SERVICE_DAILY_LIMITS.join(', ')}`,
      params: { code: 'invalid_enum' },
    })
    .default(TOKEN_LIMITS.selfServiceDailyLimitDefault),
});

export interface PersonalTokenCreated {
  tokenId: string;
  token: string;
}

export const createPersonalToken = defineOperation<z.infer<typeof CreatePersonalTokenInput>, PersonalTokenCreated>({
  name: 'tokens.create_personal',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: CreatePersonalTokenInput,
  handler: async (input, ctx) => {
    const user = await requireUserByEmail(ctx.em, input.email);
    return mintSelfServiceToken(ctx.em, ctx, user, { label: input.label, note: input.note ?? null, dailyLimit: input.daily_limit });
  },
});

/** Mints a self-service token for `user` inside the caller's transaction (value shown once). */
export async function mintSelfServiceToken(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock' | 'surface' | 'requestId'>,
  user: { id: string; status: string },
  t: { label: string; note: string | null; dailyLimit: number },
): Promise<PersonalTokenCreated> {
  if (user.status !== 'active') throw new DomainError('forbidden', 'the user is not active', { code: 'user_inactive' });
  const integratorId = await ensureIntegrator(em, PERSONAL_INTEGRATOR, ctx.clock.now());
  const { row, token } = createInboundTokenRow(em, {
    kind: 'personal',
    ownerUserId: user.id,
    integratorId,
    label: t.label,
    note: t.note,
    dailyLimit: t.dailyLimit,
    createdAt: ctx.clock.now(),
  });
  auditTokenCreated(em, ctx, row, { actorUserId: user.id }, { kind: row.kind, label: row.label });
  return { tokenId: row.id, token };
}
