// Agent tokens (`sk-svc-`): value shown once, stored hashed; `*` when no scopes are chosen.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/core';
import { defineOperation, type OpContext } from '../context.js';
import { AgentToken } from './tokens.entity.js';
import { newTokenValue, sha256Hex, TOKEN_PREFIX } from './token-crypto.js';
import { displayPrefix } from './token-format.rules.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

const SCOPE = /^(\*|[a-z_]+:(\*|[a-z_]+(:[a-z_]+)?))$/;

export const CreateAgentTokenInput = z.strictObject({
  email: z.email().max(USER_LIMITS.emailMax),
  scopes: z
    .array(z.string().regex(SCOPE, { error: 'must be a scope such as read:inbox, read:*, or *' }))
    .min(1)
    .max(TOKEN_LIMITS.agentScopesMax)
    .optional(),
  label: z.string().min(1).max(TOKEN_LIMITS.labelMax).default('cli'),
});

export interface AgentTokenCreated {
  tokenId: string;
  token: string;
  scopes: string[];
}

export function insertAgentToken(em: EntityManager, ctx: Pick<OpContext, 'clock'>, userId: string, scopes: string[], label: string): AgentTokenCreated {
  const token = newTokenValue(TOKEN_PREFIX.agent);
  const row = em.create(AgentToken, {
    id: randomUUID(),
    tokenHash: sha256Hex(token),
    displayPrefix: displayPrefix(token),
    userId,
    label,
    scopes,
    createdAt: ctx.clock.now(),
  });
  return { tokenId: row.id, token, scopes };
}

export const createAgentToken = defineOperation<z.infer<typeof CreateAgentTokenInput>, AgentTokenCreated>({
  name: 'agent_tokens.create',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: CreateAgentTokenInput,
  handler: async (input, ctx) => {
    const user = await requireUserByEmail(ctx.em, input.email);
    return insertAgentToken(ctx.em, ctx, user.id, [...new Set(input.scopes ?? ['*'])], input.label);
  },
});
