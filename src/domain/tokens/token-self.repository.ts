// The statement of GET /api/v1/tokens/self (get-token-self.ts): the token's own row, its owner and
// integrator, and today's daily counters, in one read.
import type { EntityManager } from '@mikro-orm/core';

export interface TokenSelfRow {
  id: string;
  kind: string;
  label: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  prior_valid_until: Date | string | null;
  daily_limit: number;
  breaker_open_until: Date | string | null;
  breaker_since: Date | string | null;
  user_id: string;
  email: string;
  slug: string;
  allowed_event_prefix: string;
  token_day: number | string | null;
  user_day: number | string | null;
}

/** The token `tokenId` with today's (`day`, UTC) counts of its deliveries and of its owner's inbox rows. */
export async function findTokenSelf(em: EntityManager, tokenId: string, day: string): Promise<TokenSelfRow | undefined> {
  const [row] = (await em.getConnection().execute(
    `select t.id, t.kind, t.label, t.created_at, t.last_used_at, t.prior_valid_until, t.daily_limit, t.breaker_open_until, t.breaker_since,
            u.id as user_id, u.email, i.slug, i.allowed_event_prefix,
            (select c.count from token_daily_counts c where c.token_id = t.id and c.day = ?::date) as token_day,
            (select c.count from user_daily_counts c where c.user_id = t.owner_user_id and c.day = ?::date) as user_day
       from inbound_tokens t join users u on u.id = t.owner_user_id join integrators i on i.id = t.integrator_id
      where t.id = ?`,
    [day, day, tokenId],
    'all',
  )) as TokenSelfRow[];
  return row;
}
