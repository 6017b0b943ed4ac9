// A user's own agent tokens (`sk-svc-`), managed with an agent token of the same user: create
// (scopes no wider than the caller's own; none chosen means `*`, SPEC "Agent token scopes"),
// list (never values), revoke (immediate: agent tokens have no grace window and the runner keeps
// no token cache, SPEC Authentication 5). A user only ever sees or touches their own tokens.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError, notFound } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { iso } from '../timestamps.js';
import { AgentToken } from '../tokens/tokens.entity.js';
import { CreateAgentTokenInput, insertAgentToken, type AgentTokenCreated } from '../tokens/create-agent-token.js';
import { scopeGrants } from '../tokens/scopes.rules.js';
import { announceAccessChanged } from '../inbox/announce-notification.js';
import { TOKEN_LIMITS } from '../tokens/tokens.limits.js';

export const AGENT_AUDIT = {
  tokenCreated: 'agent.token.created',
  tokenRevoked: 'agent.token.revoked',
} as const;

/**
 * Self-management needs `write:inbox`, the vocabulary's "personal token issue and revoke" scope:
 * a read-only token must not mint longer-lived siblings or revoke the user's other tokens.
 */
export const SELF_MANAGEMENT_SCOPES = ['write:inbox'] as const;

/** The scopes field of the operator's CreateAgentTokenInput (same format rule, 1-50 items). */
export const RequestedScopes = CreateAgentTokenInput.shape.scopes;

/** Requested scopes, `*` when none were chosen, duplicates removed. */
export function effectiveScopes(requested: readonly string[] | undefined): string[] {
  return [...new Set(requested && requested.length > 0 ? requested : ['*'])];
}

/** Requested scopes the caller's own scopes do not grant (empty = allowed). */
export function scopesBeyond(held: readonly string[], requested: readonly string[]): string[] {
  return requested.filter((r) => !held.some((h) => scopeGrants(h, r)));
}

/** 403 when a token would get more than the token asking for it (no privilege escalation). */
export function requireScopesWithin(held: readonly string[], requested: readonly string[]): void {
  const beyond = scopesBeyond(held, requested);
  if (beyond.length > 0) {
    throw new DomainError('forbidden', `requested scopes exceed the calling token's own: ${beyond.join(', ')}`, {
      code: 'scope_escalation',
      extra: { scopes: beyond },
    });
  }
}

export const CreateOwnAgentTokenInput = z.strictObject({
  scopes: RequestedScopes,
  label: z.string().min(1).max(TOKEN_LIMITS.labelMax).default('self-service'),
});

export const createOwnAgentToken = defineOperation<z.infer<typeof CreateOwnAgentTokenInput>, AgentTokenCreated, AgentPrincipal>({
  name: 'agent_tokens.create_own',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: SELF_MANAGEMENT_SCOPES,
  idempotent: false,
  writes: true,
  input: CreateOwnAgentTokenInput,
  handler: async (input, ctx) => {
    const scopes = effectiveScopes(input.scopes);
    requireScopesWithin(ctx.principal.scopes, scopes);
    const created = insertAgentToken(ctx.em, ctx, ctx.principal.userId, scopes, input.label);
    recordAudit(ctx.em, ctx, {
      action: AGENT_AUDIT.tokenCreated,
      actorUserId: ctx.principal.userId,
      tokenId: created.tokenId,
      targetType: 'agent_token',
      targetId: created.tokenId,
      summary: { scopes, by: 'self', via_token_id: ctx.principal.tokenId },
    });
    return created;
  },
});

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

export const RevokeOwnAgentTokenInput = z.strictObject({ token_id: z.uuid({ error: 'must be a UUID' }) });

export const revokeOwnAgentToken = defineOperation<z.infer<typeof RevokeOwnAgentTokenInput>, { revoked: true }, AgentPrincipal>({
  name: 'agent_tokens.revoke_own',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: SELF_MANAGEMENT_SCOPES,
  idempotent: true,
  writes: true,
  input: RevokeOwnAgentTokenInput,
  handler: async ({ token_id }, ctx) => {
    // Another user's token id is simply not found: existence is not revealed.
    const t = await ctx.em.findOne(AgentToken, { id: token_id, userId: ctx.principal.userId });
    if (!t) throw notFound('token');
    if (t.revokedAt === null || t.revokedAt === undefined) {
      t.revokedAt = ctx.clock.now();
      recordAudit(ctx.em, ctx, {
        action: AGENT_AUDIT.tokenRevoked,
        actorUserId: ctx.principal.userId,
        tokenId: t.id,
        targetType: 'agent_token',
        targetId: t.id,
        summary: { by: 'self', via_token_id: ctx.principal.tokenId },
      });
      // A live inbox watched with this token ends now, not at its next heartbeat.
      announceAccessChanged(ctx, t.userId);
    }
    return { revoked: true as const };
  },
});
