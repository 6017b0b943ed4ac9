// What the operations on a user's own inbound tokens share (SPEC "Personal token lifecycle",
// Authentication 4-5): called with the user's agent token (scope write:inbox), addressed by token id,
// and only ever reaching the caller's own tokens.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { requireOwnToken } from './own-tokens.repository.js';

export const TokenIdInput = z.strictObject({ token_id: z.uuid({ error: 'must be a UUID' }) });
export type TokenIdInput = z.infer<typeof TokenIdInput>;
export const ownOp = { auth: { kind: 'agent' } as const, budget: 'agent' as const, requiredScopes: ['write:inbox'] };

/** An owner's state change `from` -> `to` (idempotent: a token already in `to` is answered as it is). */
export function setState(name: string, from: string, to: string) {
  return defineOperation<TokenIdInput, { tokenId: string; status: string }, AgentPrincipal>({
    name,
    ...ownOp,
    idempotent: true,
    writes: true,
    input: TokenIdInput,
    handler: async ({ token_id }, ctx) => {
      const t = await requireOwnToken(ctx.em, ctx.principal.userId, token_id);
      if (t.status === to) return { tokenId: t.id, status: t.status };
      if (t.status !== from) throw new DomainError('conflict', `token is ${t.status}`, { code: 'invalid_state' });
      t.status = to;
      return { tokenId: t.id, status: t.status };
    },
  });
}
