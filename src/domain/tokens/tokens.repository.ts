import type { Connection, EntityManager } from '@mikro-orm/core';
import { PREPARED, pgArray } from '../sql-hints.js';
import { TickBatcher } from '../tick-batcher.js';

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
}

// Hot path of every inbound request: a prepared statement (see sql-hints.ts), one constant string.
// The lookups of concurrent requests on one connection pool share it (TickBatcher): one array of
// hashes, matched against the current and the prior (rotation overlap) hash.
const INBOUND_TOKENS_BY_HASHES = `${PREPARED} select t.id, t.kind, t.status, t.token_hash, t.prior_token_hash, t.prior_valid_until, t.label, t.daily_limit,
            t.last_used_at, t.created_at, u.id as user_id, u.email, u.role, u.status as user_status, i.id as integrator_id,
            i.slug as integrator_slug, i.allowed_event_prefix, t.breaker_open_until
       from inbound_tokens t
       join users u on u.id = t.owner_user_id
       join integrators i on i.id = t.integrator_id
      where t.token_hash = any(?::text[]) or t.prior_token_hash = any(?::text[])`;

const inboundLookups = new WeakMap<Connection, TickBatcher<string, InboundTokenAuthRow>>();

/** One indexed lookup by current or prior (rotation overlap) hash. No cache: revocation is immediate. */
export function findInboundTokenByHash(em: EntityManager, hash: string): Promise<InboundTokenAuthRow | undefined> {
  const conn = em.getConnection();
  let b = inboundLookups.get(conn);
  if (!b) {
    b = new TickBatcher(async (hashes) => {
      const list = pgArray(hashes);
      const rows = (await conn.execute(INBOUND_TOKENS_BY_HASHES, [list, list], 'all')) as InboundTokenAuthRow[];
      const byHash = new Map<string, InboundTokenAuthRow>();
      // A current hash wins over a prior one (a hash is never both, but the order is then fixed).
      for (const r of rows) if (r.prior_token_hash !== null && !byHash.has(r.prior_token_hash)) byHash.set(r.prior_token_hash, r);
      for (const r of rows) byHash.set(r.token_hash, r);
      return byHash;
    });
    inboundLookups.set(conn, b);
  }
  return b.get(hash);
}

export interface AgentTokenAuthRow {
  id: string;
  scopes: string[];
  revoked_at: Date | string | null;
  last_used_at: Date | string | null;
  created_at: Date | string;
  user_id: string;
  email: string;
  role: string;
  user_status: string;
}

const AGENT_TOKEN_BY_HASH = `${PREPARED} select a.id, a.scopes, a.revoked_at, a.last_used_at, a.created_at, u.id as user_id, u.email, u.role, u.status as user_status
       from agent_tokens a join users u on u.id = a.user_id where a.token_hash = ?`;

export async function findAgentTokenByHash(em: EntityManager, hash: string): Promise<AgentTokenAuthRow | undefined> {
  const rows = (await em.getConnection().execute(
    AGENT_TOKEN_BY_HASH,
    [hash],
    'all',
  )) as AgentTokenAuthRow[];
  return rows[0];
}

/** last_used_at is refreshed at most hourly to keep the hot path free of extra writes. */
export async function touchTokenUse(em: EntityManager, table: 'inbound_tokens' | 'agent_tokens', id: string, now: Date): Promise<void> {
  await em.getConnection().execute(`update ${table} set last_used_at = ?::timestamptz where id = ?`, [now.toISOString(), id], 'run');
}
