import type { Connection } from '@mikro-orm/core';
import { PREPARED, pgArray } from '../sql-hints.js';
import type { AgentTokenAuthRow, InboundTokenAuthRow } from './token-directory.js';

// Hot path of every inbound request: a prepared statement (see sql-hints.ts), one constant string.
// The lookups of concurrent requests share it (infra/tokens/token-directory.ts batches them). Per hash:
// the token whose current hash it is, else the one whose prior (rotation overlap) hash it is, then
// owner and integrator; every step a LATERAL ... LIMIT 1 probe of a unique index, so the plan
// stays index-driven whatever the batch size and table sizes (`token_hash = any(..) or
// prior_token_hash = any(..)` over 40 hashes was planned as a sequential scan of the tokens, and a
// plain join to users as a hash of the whole users table).
const INBOUND_TOKENS_BY_HASHES = `${PREPARED} select h.hash as matched_hash, t.id, t.kind, t.status, t.token_hash, t.prior_token_hash, t.prior_valid_until,
            t.label, t.daily_limit, t.last_used_at, t.created_at, u.id as user_id, u.email, u.role, u.status as user_status,
            i.id as integrator_id, i.slug as integrator_slug, i.allowed_event_prefix, t.breaker_open_until,
            t.ver as token_ver, u.ver as user_ver, i.ver as integrator_ver
       from unnest(?::text[]) as h (hash)
       cross join lateral (
         select c.* from ((select t.*, t.xmin::text as ver from inbound_tokens t where t.token_hash = h.hash limit 1)
                          union all
                          (select t.*, t.xmin::text as ver from inbound_tokens t where t.prior_token_hash = h.hash limit 1)) c
         limit 1) t
       cross join lateral (select u.id, u.email, u.role, u.status, u.xmin::text as ver from users u where u.id = t.owner_user_id limit 1) u
       cross join lateral (select i.id, i.slug, i.allowed_event_prefix, i.xmin::text as ver from integrators i where i.id = t.integrator_id limit 1) i`;

/**
 * Token rows by hash, for many hashes in one statement: `sql` takes one text[] of hashes and
 * returns each found row with its `matched_hash`. Every call reads the database (the principal
 * cache of events.publish sits in front of it, in infra/tokens).
 */
async function rowsByHash<Row>(conn: Connection, sql: string, hashes: readonly string[]): Promise<Map<string, Row>> {
  const rows = (await conn.execute(sql, [pgArray(hashes)], 'all')) as Array<Row & { matched_hash: string }>;
  return new Map(rows.map(({ matched_hash, ...row }) => [matched_hash, row as Row]));
}

/** Indexed lookups by current or prior (rotation overlap) hash. */
export const findInboundTokensByHashes = (conn: Connection, hashes: readonly string[]) =>
  rowsByHash<InboundTokenAuthRow>(conn, INBOUND_TOKENS_BY_HASHES, hashes);

// The agent tools' hot path, batched like the inbound lookup: one unique-index probe per hash.
const AGENT_TOKENS_BY_HASHES = `${PREPARED} select h.hash as matched_hash, a.id, a.scopes, a.revoked_at, a.last_used_at, a.created_at,
            u.id as user_id, u.email, u.name, u.role, u.status as user_status
       from unnest(?::text[]) as h (hash)
       cross join lateral (select a.* from agent_tokens a where a.token_hash = h.hash limit 1) a
       cross join lateral (select u.id, u.email, u.name, u.role, u.status from users u where u.id = a.user_id limit 1) u`;

export const findAgentTokensByHashes = (conn: Connection, hashes: readonly string[]) => rowsByHash<AgentTokenAuthRow>(conn, AGENT_TOKENS_BY_HASHES, hashes);
