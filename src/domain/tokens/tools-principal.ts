// The principal an inbound-token operation expects, built from a token row by id instead of from
// a presented bearer value (the runner's path, tokens/authenticate.ts). Agent tools use it to run
// an inbound operation's own handler on behalf of a token the agent's user holds or sent with:
// `broadcast_event` (the caller's tools-token) and resolve/supplement (the sending token).
import type { EntityManager } from '@mikro-orm/core';
import type { InboundTokenPrincipal } from '../principal.js';
import { findTokenPrincipalRow, type TokenPrincipalRow } from './inbound-tokens.repository.js';

const toPrincipal = (r: TokenPrincipalRow): InboundTokenPrincipal => ({
  type: 'inbound_token',
  tokenId: r.id,
  kind: r.kind,
  userId: r.user_id,
  userEmail: r.email,
  userRole: r.role,
  integratorId: r.integrator_id,
  integratorSlug: r.integrator_slug,
  allowedEventPrefix: r.allowed_event_prefix,
  label: r.label,
  dailyLimit: r.daily_limit,
});

/** Any inbound token, whatever its state (the caller decides what the state allows). */
export async function principalForInboundToken(em: EntityManager, tokenId: string): Promise<InboundTokenPrincipal | undefined> {
  const row = await findTokenPrincipalRow(em, tokenId);
  return row ? toPrincipal(row) : undefined;
}

/**
 * An active tools-token owned by `ownerUserId`; undefined for anything else (absent, another
 * user's, not a tools-token, disabled or revoked), so a caller cannot tell those apart.
 */
export async function principalForToolsToken(em: EntityManager, tokenId: string, ownerUserId: string): Promise<InboundTokenPrincipal | undefined> {
  const row = await findTokenPrincipalRow(em, tokenId);
  if (row?.kind !== 'tools_claim' || row.status !== 'active' || row.user_id !== ownerUserId) return undefined;
  return toPrincipal(row);
}
