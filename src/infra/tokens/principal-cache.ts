// In-process cache of inbound token lookups by token hash (TokenDirectory's cachedInbound /
// cacheInbound), for events.publish through the group commit only: a cached row is served as an
// `unverified` principal that the publish statement itself proves current, so a revoked token is
// refused at once by every process (docs/architecture.md, "The publish path"). Bounded by
// lru-cache's `max`; reads use `peek`, so the least recently stored entry goes first and a read
// costs no bookkeeping.
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
