// Bearer authentication for inbound and agent tokens (SPEC Authentication 1-3, 5, "Personal token
// lifecycle"). Distinct 401 codes: missing_or_invalid_authorization, invalid_token_format,
// token_not_found, token_mismatch (a valid token of a kind this operation does not take),
// token_revoked (disabled, revoked, expired, rotated out, or owner no longer active).
import type { AuthRequirement, Clock } from '../context.js';
import type { AgentPrincipal, InboundTokenPrincipal, Principal } from '../principal.js';
import { unauthenticated, type DomainError } from '../errors.js';
import { parseAuthorization } from './token-format.rules.js';
import type { InboundTokenAuthRow, TokenDirectory } from './token-directory.js';
import { hashToken, isUsable, TOUCH_INTERVAL_MS, INACTIVITY_EXPIRY_MS } from './token-lifecycle.rules.js';
import { circuitOpenError } from './circuit-breaker.rules.js';

export async function authenticate(
  tokens: TokenDirectory,
  req: AuthRequirement,
  authorization: string | undefined,
  clock: Clock,
  /** fresh: never serve the principal from the principal cache (runOperation's second pass). */
  opts: { fresh?: boolean } = {},
): Promise<Principal> {
  if (req.kind === 'none' || req.kind === 'system') return { type: 'system' };
  const parsed = parseAuthorization(authorization);
  if (!parsed.ok) throw unauthenticated(parsed.code, parsed.message);
  const now = clock.now();
  const hash = hashToken(parsed.token);

  if (req.kind === 'agent') {
    if (parsed.family !== 'agent') throw unauthenticated('token_mismatch', 'this endpoint takes an agent token (sk-svc-)');
    const row = await tokens.findAgent(hash);
    if (!row) throw unauthenticated('token_not_found', 'unknown token');
    const lastUse = new Date(row.last_used_at ?? row.created_at).getTime();
    if (row.revoked_at !== null || row.user_status !== 'active' || now.getTime() - lastUse > INACTIVITY_EXPIRY_MS) {
      throw unauthenticated('token_revoked', 'token revoked or expired');
    }
    if (touchDue(row, now)) tokens.recordUse('agent_tokens', row.id, now);
    const principal: AgentPrincipal = {
      type: 'agent',
      tokenId: row.id,
      userId: row.user_id,
      userEmail: row.email,
      userName: row.name,
      userRole: row.role,
      scopes: row.scopes,
    };
    return principal;
  }

  const wantsTools = req.tokenKinds.includes('tools_claim');
  const wantsPersonal = req.tokenKinds.includes('personal') || req.tokenKinds.includes('moderation');
  if (parsed.family === 'agent' || (parsed.family === 'tools' && !wantsTools) || (parsed.family === 'inbound_personal' && !wantsPersonal)) {
    throw unauthenticated('token_mismatch', `this endpoint does not take this kind of token`);
  }
  // The cache serves only rows that would pass every check below as they stand (the statement
  // that writes the result proves them current; see StalePrincipalError in token-directory.ts).
  const cachedKinds = req.cachedKinds ?? [];
  const cacheable = cachedKinds.length > 0;
  if (cacheable && !opts.fresh) {
    const cached = tokens.cachedInbound(hash);
    if (cached && cachedKinds.includes(cached.kind) && inboundRefusal(cached, hash, now, req) === undefined && !touchDue(cached, now)) {
      return { ...inboundPrincipal(cached), unverified: { token: cached.token_ver, user: cached.user_ver, integrator: cached.integrator_ver } };
    }
  }
  if (cacheable) tokens.forgetInbound(hash);
  const row = await tokens.findInbound(hash);
  if (!row) throw unauthenticated('token_not_found', 'unknown token');
  const refusal = inboundRefusal(row, hash, now, req);
  if (refusal) throw refusal;
  if (touchDue(row, now)) {
    // Written after this call (TokenDirectory.recordUse); it makes a new row version, so the row
    // just read is not cached: the calls until it is written read the token again.
    tokens.recordUse('inbound_tokens', row.id, now);
  } else if (cacheable && cachedKinds.includes(row.kind)) {
    tokens.cacheInbound(hash, row);
  }
  return inboundPrincipal(row);
}

/** Why this inbound token row may not make this call now, or undefined when it may. */
function inboundRefusal(
  row: InboundTokenAuthRow,
  hash: string,
  now: Date,
  req: { tokenKinds: readonly string[]; whileSuspended?: true },
): DomainError | undefined {
  const usable = isUsable(row, hash, now);
  if (!usable.ok) return unauthenticated('token_revoked', usable.reason);
  if (!req.tokenKinds.includes(row.kind)) return unauthenticated('token_mismatch', `this endpoint does not take a ${row.kind} token`);
  // A suspended token (circuit breaker, SPEC Limits) answers 429 on every inbound call; the state
  // comes with the row just loaded, so the check costs nothing.
  if (!req.whileSuspended && row.breaker_open_until !== null && now < new Date(row.breaker_open_until))
    return circuitOpenError(new Date(row.breaker_open_until), now);
  return undefined;
}

/** last_used_at is refreshed at most hourly. */
function touchDue(row: { last_used_at: Date | string | null }, now: Date): boolean {
  return row.last_used_at === null || now.getTime() - new Date(row.last_used_at).getTime() > TOUCH_INTERVAL_MS;
}

function inboundPrincipal(row: InboundTokenAuthRow): InboundTokenPrincipal {
  return {
    type: 'inbound_token',
    tokenId: row.id,
    kind: row.kind,
    userId: row.user_id,
    userEmail: row.email,
    userRole: row.role,
    integratorId: row.integrator_id,
    integratorSlug: row.integrator_slug,
    allowedEventPrefix: row.allowed_event_prefix,
    label: row.label,
    dailyLimit: row.daily_limit,
  };
}
