// What a user's own agent tokens (`sk-svc-`) share across self-management and connect sessions:
// the audit actions, the scope needed to manage them, and the rule that a token never gets scopes
// wider than the token asking for it (SPEC "Agent token scopes"; none chosen means `*`).
import { DomainError } from '../errors.js';
import { CreateAgentTokenInput } from './create-agent-token.js';
import { scopeGrants } from './scopes.rules.js';

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
