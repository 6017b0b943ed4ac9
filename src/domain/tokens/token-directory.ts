// What authentication needs to find tokens (SPEC Authentication): a lookup by hash that reads the
// rows as they are now, a cache of earlier lookups for the one operation whose write proves them
// current (events.publish, see StalePrincipalError), and a record of last use. Implemented in
// infra/tokens/ (batched lookups, the bounded cache, the batched last-use refresh) and built once
// in deps.ts; operations reach it as `ctx.ports.tokens`, the runner as `deps.ports.tokens`. The SQL
// is tokens.repository.ts's; the rows it reads are stated here, with the port.

/** An inbound token with its owner and integrator, as the lookup by hash reads them (tokens.repository.ts). */
export interface InboundTokenAuthRow {
  id: string;
  kind: 'personal' | 'moderation' | 'tools_claim';
  status: string;
  token_hash: string;
  prior_token_hash: string | null;
  prior_valid_until: Date | string | null;
  label: string;
  daily_limit: number;
  last_used_at: Date | string | null;
  created_at: Date | string;
  user_id: string;
  email: string;
  role: string;
  user_status: string;
  integrator_id: string;
  integrator_slug: string;
  allowed_event_prefix: string;
  /** Circuit breaker: open (429 circuit_open) until this instant; null or past = closed. */
  breaker_open_until: Date | string | null;
  /** Row versions (`xmin`) of the token, owner and integrator rows read (the principal cache, infra/tokens/principal-cache.ts). */
  token_ver: string;
  user_ver: string;
  integrator_ver: string;
}

/** An agent token with its owner, as the lookup by hash reads them (tokens.repository.ts). */
export interface AgentTokenAuthRow {
  id: string;
  scopes: string[];
  revoked_at: Date | string | null;
  last_used_at: Date | string | null;
  created_at: Date | string;
  user_id: string;
  email: string;
  name: string;
  role: string;
  user_status: string;
}

export type TokenTable = 'inbound_tokens' | 'agent_tokens';

export interface TokenDirectory {
  /** The inbound token whose current or prior (rotation overlap) hash is `hash`, read now. */
  findInbound(hash: string): Promise<InboundTokenAuthRow | undefined>;
  /** The agent token whose hash is `hash`, read now. */
  findAgent(hash: string): Promise<AgentTokenAuthRow | undefined>;
  /**
   * An inbound token row read earlier and kept (the principal cache). Never proof on its own: a
   * principal made from it is `unverified`, and only a write that checks its row versions may
   * accept it (see StalePrincipalError).
   */
  cachedInbound(hash: string): InboundTokenAuthRow | undefined;
  /** Keep `row` for later calls with `hash` (bounded: a row pushed out is simply read again). */
  cacheInbound(hash: string, row: InboundTokenAuthRow): void;
  forgetInbound(hash: string): void;
  /**
   * The token was used at `now`: its last_used_at is refreshed soon after, without the caller
   * waiting (a refresh that is lost leaves the token due, and its next call asks again).
   */
  recordUse(table: TokenTable, id: string, now: Date): void;
}

/**
 * The token, its owner or its integrator changed since the cached lookup the principal came from:
 * nothing was written. The runner then runs the call again on a fresh lookup.
 */
export class StalePrincipalError extends Error {
  constructor() {
    super('the token, its owner or its integrator changed since the cached lookup');
    this.name = 'StalePrincipalError';
  }
}
