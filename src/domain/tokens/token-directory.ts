// What authentication needs to find tokens (SPEC Authentication): a lookup by hash that reads the
// rows as they are now, a cache of earlier lookups for the one operation whose write proves them
// current (events.publish, see StalePrincipalError), and a record of last use. Implemented in
// infra/tokens/ (batched lookups, the bounded cache, the batched last-use refresh) and built once
// in deps.ts; operations reach it as `ctx.ports.tokens`, the runner as `deps.ports.tokens`.
import type { AgentTokenAuthRow, InboundTokenAuthRow } from './tokens.repository.js';

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
