// A user lists their own agent tokens (never the values), marking the one that made the call.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { iso } from '../timestamps.js';
import { SELF_MANAGEMENT_SCOPES } from './agent-tokens.shared.js';
import { AgentToken } from './tokens.entity.js';

export interface AgentTokenView {
  tokenId: string;
  label: string;
  scopes: string[];
  displayPrefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** The token that made this call. */
  current: boolean;
}

export const listOwnAgentTokens = defineOperation<Record<string, never>, { items: AgentTokenView[] }, AgentPrincipal>({
  name: 'agent_tokens.list_own',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: SELF_MANAGEMENT_SCOPES,
  idempotent: false,
  input: z.strictObject({}),
  handler: async (_input, ctx) => {
    const rows = await ctx.em.find(AgentToken, { userId: ctx.principal.userId }, { orderBy: { createdAt: 'desc', id: 'asc' } });
    return {
      items: rows.map((t) => ({
        tokenId: t.id,
        label: t.label,
        scopes: [...t.scopes],
        displayPrefix: t.displayPrefix,
        createdAt: iso(t.createdAt),
        lastUsedAt: t.lastUsedAt ? iso(t.lastUsedAt) : null,
        revokedAt: t.revokedAt ? iso(t.revokedAt) : null,
        current: t.id === ctx.principal.tokenId,
      })),
    };
  },
});
