// Catalog item management (SPEC "Catalog item", "Catalog item archive state", REST v1
// `/api/v1/catalog/items`): the ownership checks and audit helpers that the create, list, get,
// patch, archive and delete operations share. Every operation needs an admin-owned tools-token.
import type { EntityManager } from '@mikro-orm/core';
import type { OpContext } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError, notFound, type Issue } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { userExists } from '../users/users.repository.js';
import { findToolsTokenLink, type CatalogItemRow } from './catalog.repository.js';
import type { CatalogActor, ItemRef } from './catalog-items.schemas.js';

export const AUTH = { kind: 'inbound', tokenKinds: ['tools_claim'] } as const;

export const actorOf = (p: InboundTokenPrincipal): CatalogActor => ({ userId: p.userId, role: p.userRole, tokenId: p.tokenId, integratorId: p.integratorId });

export const AUDIT_ACTIONS = {
  created: 'catalog.item.created',
  updated: 'catalog.item.updated',
  archived: 'catalog.item.archived',
  deleted: 'catalog.item.deleted',
} as const;

export const missing = (ref: ItemRef | string) =>
  notFound(typeof ref === 'string' ? `catalog item "${ref}"` : 'slug' in ref ? `catalog item "${ref.slug}"` : `catalog item ${ref.id}`);

/** The tools-token a row is to be linked to. */
export interface LinkTarget {
  integratorId: string;
  ownerUserId: string;
}

/**
 * Referenced rows must exist: a contact user, and a tools-token for the link (its integrator
 * becomes the row's owner, which claim eligibility reads). Returns the field issues and the
 * linked tools-token.
 */
export async function checkReferences(
  em: EntityManager,
  refs: { contact_user_id?: string | null; linked_tools_token_id?: string | null },
): Promise<{ issues: Issue[]; link: LinkTarget | null }> {
  const issues: Issue[] = [];
  let link: LinkTarget | null = null;
  if (refs.contact_user_id) {
    if (!(await userExists(em, refs.contact_user_id))) issues.push({ field: 'contact_user_id', code: 'not_found', message: 'no user with this id' });
  }
  if (refs.linked_tools_token_id) {
    const t = await findToolsTokenLink(em, refs.linked_tools_token_id);
    if (!t) issues.push({ field: 'linked_tools_token_id', code: 'not_found', message: 'no tools-token with this id' });
    else link = { integratorId: t.integrator_id, ownerUserId: t.owner_user_id };
  }
  return { issues, link };
}

export const notOwned = (name: string) =>
  new DomainError('forbidden', `catalog item "${name}" belongs to another integrator; a tools-token manages only its own integrator's rows`, {
    code: 'catalog_item_not_owned',
  });

export const linkRefused = (detail: string) =>
  new DomainError('forbidden', `linked_tools_token_id: ${detail}`, { code: 'tools_token_not_owned', extra: { field: 'linked_tools_token_id' } });

/**
 * A row belongs to `integrator_id` (SPEC: `linked_tools_token_id` is the "tools-token of the
 * integrator that owns the row"), or to nobody (old rows, rows made without a link). A tools-token
 * is an integrator's identity: it changes and deletes only its own integrator's rows and unowned
 * ones. An admin's agent token (the `catalog_item_*` tools) administers every row.
 */
export function assertMayManage(actor: CatalogActor, row: Pick<CatalogItemRow, 'integrator_id'>, name: string): void {
  if (actor.integratorId !== undefined && row.integrator_id !== null && row.integrator_id !== actor.integratorId) throw notOwned(name);
}

/**
 * May `actor` link `link` to the row (`row` undefined: a row being created)? A row never moves to
 * another integrator by a link change; a tools-token links only its own integrator's tokens, and
 * never adopts an unowned row (that would make the row's approvals claimable by its integrator); an
 * admin links an unowned row only to a tools-token they own (a super admin: any).
 */
export function assertMayLink(actor: CatalogActor, row: Pick<CatalogItemRow, 'integrator_id'> | undefined, link: LinkTarget): void {
  const owner = row?.integrator_id ?? null;
  if (owner !== null && link.integratorId !== owner) throw linkRefused('must be a tools-token of the integrator that owns the row');
  if (actor.integratorId !== undefined) {
    if (link.integratorId !== actor.integratorId) throw linkRefused('must be a tools-token of your own integrator');
    if (row !== undefined && owner === null) throw linkRefused("a tools-token links only rows it creates or its own integrator's rows");
  } else if (owner === null && link.ownerUserId !== actor.userId && actor.role !== 'super_admin') {
    throw linkRefused('must be a tools-token you own');
  }
}

export function audit(
  em: EntityManager,
  ctx: Pick<OpContext, 'surface' | 'requestId' | 'clock'>,
  actor: CatalogActor,
  action: string,
  row: CatalogItemRow,
  summary: Record<string, unknown>,
): void {
  recordAudit(em, ctx, {
    action,
    actorUserId: actor.userId,
    tokenId: actor.tokenId,
    targetType: 'catalog_item',
    targetId: row.id,
    summary: { ...(actor.tool ? { tool: actor.tool } : {}), slug: row.slug, ...summary },
  });
}
