// Personal ping (legacy): proves the token works; creates nothing.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';

export interface PersonalPing {
  ok: true;
  token_id: string;
  owner: string;
  now: string;
}

export const pingPersonalToken = defineOperation<unknown, PersonalPing, InboundTokenPrincipal>({
  name: 'tokens.ping_personal',
  auth: { kind: 'inbound', tokenKinds: ['personal', 'moderation'] },
  budget: 'publish',
  idempotent: false,
  // Any JSON body (object, array or scalar) is accepted and ignored (SPEC section B).
  input: z.unknown(),
  handler: async (_input, ctx) => ({ ok: true, token_id: ctx.principal.tokenId, owner: ctx.principal.userEmail, now: ctx.clock.now().toISOString() }),
});
