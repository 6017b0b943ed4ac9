// Reads of inbound token rows by id and the admin listing (never the hash, prior hash or
// callback secret). The by-hash lookups of authentication are in tokens.repository.ts.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import type { TokenKind } from '../principal.js';

/** A token with its owner and integrator: what an inbound principal is built from. */
export interface TokenPrincipalRow {
  id: string;
  kind: TokenKind;
  status: string;
  label: string;
  daily_limit: number;
  user_id: string;
  email: string;
  role: string;
  integrator_id: string;
  integrator_slug: string;
  allowed_event_prefix: string;
}

/** Any inbound token by id, whatever its state. */
export async function findTokenPrincipalRow(em: EntityManager, tokenId: string): Promise<TokenPrincipalRow | undefined> {
  const rows = await run<TokenPrincipalRow>(
    em,
    `select t.id, t.kind, t.status, t.label, t.daily_limit, u.id as user_id, u.email, u.role, i.id as integrator_id,
            i.slug as integrator_slug, i.allowed_event_prefix
       from inbound_tokens t join users u on u.id = t.owner_user_id join integrators i on i.id = t.integrator_id
      where t.id = ?`,
    [tokenId],
  );
  return rows[0];
}

export interface InboundTokenListRow {
  id: string;
  label: string;
  kind: TokenKind;
  status: string;
  owner_email: string;
  created_at: Date | string;
  revoked_at: Date | string | null;
  linked_catalog_slug: string | null;
}

/**
 * Every inbound token, newest first, optionally of one kind, revoked ones only on request.
 * `linked_catalog_slug`: for a tools-token the catalog row linked to it (else its integrator's
 * oldest live row; a moderation token: its integrator's row); for a claimed personal token the
 * row of the approval it was minted under; otherwise null. Named columns only: the hash, prior
 * hash and callback secret never leave the table.
 */
export async function listInboundTokensForAdmin(
  em: EntityManager,
  f: { kind?: TokenKind; includeRevoked: boolean; limit: number },
): Promise<InboundTokenListRow[]> {
  return (await em.getConnection().execute(
    `select t.id, t.label, t.kind, t.status, u.email as owner_email, t.created_at, t.revoked_at,
              case when t.kind in ('tools_claim', 'moderation')
                   then coalesce((select c.slug from catalog_items c where c.linked_tools_token_id = t.id order by c.created_at, c.id limit 1),
                                 (select c.slug from catalog_items c where c.integrator_id = t.integrator_id and c.archived_at is null order by c.created_at, c.id limit 1))
                   else (select c.slug from catalog_requests r join catalog_items c on c.id = r.catalog_item_id where r.id = t.approval_id)
              end as linked_catalog_slug
         from inbound_tokens t join users u on u.id = t.owner_user_id
        where (?::varchar is null or t.kind = ?) and (?::boolean or t.status <> 'revoked')
        order by t.created_at desc, t.id limit ?`,
    [f.kind ?? null, f.kind ?? null, f.includeRevoked, f.limit],
  )) as InboundTokenListRow[];
}

export interface InboundTokenOversightRow {
  id: string;
  kind: TokenKind;
  label: string;
  status: string;
  owner_user_id: string;
  owner_email: string;
  daily_limit: number;
  created_at: Date | string;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
  revoked_reason: string | null;
}

/**
 * The admin's token oversight list (AccountService.AdminListTokens): every inbound token, newest
 * first, optionally of one kind, revoked ones only on request, with owner and last use. Named
 * columns only: the hash, prior hash, display prefix and callback secret never leave the table.
 */
export async function listInboundTokensForOversight(
  em: EntityManager,
  f: { kind?: TokenKind; includeRevoked: boolean; limit: number },
): Promise<InboundTokenOversightRow[]> {
  return run<InboundTokenOversightRow>(
    em,
    `select t.id, t.kind, t.label, t.status, t.owner_user_id, u.email as owner_email, t.daily_limit, t.created_at,
            t.last_used_at, t.revoked_at, t.revoked_reason
       from inbound_tokens t join users u on u.id = t.owner_user_id
      where (?::varchar is null or t.kind = ?) and (?::boolean or t.status <> 'revoked')
      order by t.created_at desc, t.id limit ?`,
    [f.kind ?? null, f.kind ?? null, f.includeRevoked, f.limit],
  );
}
