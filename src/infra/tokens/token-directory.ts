// The TokenDirectory (domain/tokens/token-directory.ts) on the service's database: lookups by hash
// batched per turn of the event loop (TickBatcher: the lookups of concurrent requests share one
// prepared statement), the principal cache (principal-cache.ts) and the last-use refresh
// (last-use.ts). One per service, built in deps.ts.
import type { Connection } from '@mikro-orm/core';
import type { AgentTokenAuthRow, InboundTokenAuthRow, TokenDirectory, TokenTable } from '../../domain/tokens/token-directory.js';
import { findAgentTokensByHashes, findInboundTokensByHashes } from '../../domain/tokens/tokens.repository.js';
import { TickBatcher } from '../tick-batcher.js';
import { LastUseRecorder } from './last-use.js';
import { PrincipalCache } from './principal-cache.js';

export class DatabaseTokenDirectory implements TokenDirectory {
  readonly principals = new PrincipalCache();
  readonly lastUse: LastUseRecorder;
  private readonly inbound: TickBatcher<string, InboundTokenAuthRow>;
  private readonly agent: TickBatcher<string, AgentTokenAuthRow>;

  /** `conn`: the service's connection pool (lookups are statements of their own, never in a caller's transaction). */
  constructor(conn: Connection) {
    this.inbound = new TickBatcher((hashes) => findInboundTokensByHashes(conn, hashes));
    this.agent = new TickBatcher((hashes) => findAgentTokensByHashes(conn, hashes));
    this.lastUse = new LastUseRecorder(conn);
  }

  findInbound(hash: string): Promise<InboundTokenAuthRow | undefined> {
    return this.inbound.get(hash);
  }

  findAgent(hash: string): Promise<AgentTokenAuthRow | undefined> {
    return this.agent.get(hash);
  }

  cachedInbound(hash: string): InboundTokenAuthRow | undefined {
    return this.principals.get(hash);
  }

  cacheInbound(hash: string, row: InboundTokenAuthRow): void {
    this.principals.set(hash, row);
  }

  forgetInbound(hash: string): void {
    this.principals.delete(hash);
  }

  recordUse(table: TokenTable, id: string, now: Date): void {
    this.lastUse.touch(table, id, now);
  }
}
