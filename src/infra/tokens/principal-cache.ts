// In-process cache of inbound token lookups, keyed by token hash, behind TokenDirectory's
// cachedInbound / cacheInbound (domain/tokens/token-directory.ts), for the one operation whose
// write can prove its caller current in the same statement: events.publish through the group
// commit (SPEC: a revoked token is refused at once, by every process).
//
// A cached row is never trusted on its own. authenticate() serves it as a principal marked
// `unverified` with the row versions (PostgreSQL `xmin`) of the token, its owner and its
// integrator as they were read; the publish statement writes the delivery only if all three rows
// are still at those versions (any change to them, e.g. revoke, disable, rotate, offboard, a role,
// prefix or limit change, a circuit-breaker trip or the hourly last-use touch, makes a new row
// version) and otherwise writes nothing and the call throws StalePrincipalError. runOperation then
// runs the call again with a fresh lookup, as it does for every other failure of an unverified
// call, so errors (401, 400, 403, 429) are always decided on current rows. The time rules (rotation
// overlap, 12-month expiry, breaker end) are re-evaluated on every use against the clock.
//
// What it saves: the lookup statement and its round trip before the write (about 2 ms of latency
// and a fifth of PostgreSQL's CPU per repeated event under load). Entries hold hashes only, never
// token values. The bound is lru-cache's (`max`); reads use `peek`, so the least recently STORED
// entry goes first, as before the library (a read moves nothing: no bookkeeping per publish).
import { LRUCache } from 'lru-cache';
import type { InboundTokenAuthRow } from '../../domain/tokens/token-directory.js';

/**
 * Bound on entries per service: about 1.7 KB each (the lookup row), so at most about 9 MB. The
 * least recently stored goes first; a token pushed out is simply looked up again.
 */
const MAX_ENTRIES = 5_000;

export class PrincipalCache {
  private readonly rows: LRUCache<string, InboundTokenAuthRow>;

  constructor(maxEntries = MAX_ENTRIES) {
    this.rows = new LRUCache({ max: maxEntries });
  }

  get(hash: string): InboundTokenAuthRow | undefined {
    return this.rows.peek(hash);
  }

  set(hash: string, row: InboundTokenAuthRow): void {
    this.rows.set(hash, row);
  }

  delete(hash: string): void {
    this.rows.delete(hash);
  }

  get size(): number {
    return this.rows.size;
  }
}
