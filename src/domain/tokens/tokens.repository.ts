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
// The lookups of concurrent requests on one connection pool share it (TickBatcher). Per hash:
// the token whose current hash it is, else the one whose prior (rotation overlap) hash it is, then
// owner and integrator; every step a LATERAL ... LIMIT 1 probe of a unique index, so the plan
// stays index-driven whatever the batch size and table sizes (`token_hash = any(..) or
// prior_token_hash = any(..)` over 40 hashes was planned as a sequential scan of the tokens, and a
// plain join to users as a hash of the whole users table).
const INBOUND_TOKENS_BY_HASHES = `${PREPARED} select h.hash as matched_hash, t.id, t.kind, t.status, t.token_hash, t.prior_token_hash, t.prior_valid_until,
            t.label, t.daily_limit, t.last_used_at, t.created_at, u.id as user_id, u.email, u.role, u.status as user_status,
            i.id as integrator_id, i.slug as integrator_slug, i.allowed_event_prefix, t.breaker_open_until
       from unnest(?::text[]) as h (hash)
       cross join lateral (
         select c.* from ((select t.* from inbound_tokens t where t.token_hash = h.hash limit 1)
                          union all
                          (select t.* from inbound_tokens t where t.prior_token_hash = h.hash limit 1)) c
         limit 1) t
       cross join lateral (select u.id, u.email, u.role, u.status from users u where u.id = t.owner_user_id limit 1) u
       cross join lateral (select i.id, i.slug, i.allowed_event_prefix from integrators i where i.id = t.integrator_id limit 1) i`;

const inboundLookups = new WeakMap<Connection, TickBatcher<string, InboundTokenAuthRow>>();

/** An indexed lookup by current or prior (rotation overlap) hash. No cache: revocation is immediate. */
export function findInboundTokenByHash(em: EntityManager, hash: string): Promise<InboundTokenAuthRow | undefined> {
  const conn = em.getConnection();
  let b = inboundLookups.get(conn);
  if (!b) {
    b = new TickBatcher(async (hashes) => {
      const rows = (await conn.execute(INBOUND_TOKENS_BY_HASHES, [pgArray(hashes)], 'all')) as Array<InboundTokenAuthRow & { matched_hash: string }>;
      return new Map(rows.map(({ matched_hash, ...row }) => [matched_hash, row]));
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
  name: string;
  role: string;
  user_status: string;
}

const AGENT_TOKEN_BY_HASH = `${PREPARED} select a.id, a.scopes, a.revoked_at, a.last_used_at, a.created_at, u.id as user_id, u.email, u.name, u.role, u.status as user_status
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
