// Catalog approvals (SPEC "Catalog approval", "Catalog approval status"): admin assign (bypasses
// review, idempotent), list, revoke (cascades to personal tokens claimed under the approval),
// review of pending requests, and an operator "apply" that files a pending request, one operation
// per file. The lookups here and each operation's `*InTransaction` core are shared with the agent
// tools of this area, which add the agent-side status vocabulary (pending, approved, ...).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { notFound } from '../errors.js';
import { AccessAsset } from './catalog.entity.js';
import { findApprovalView, findItemById, findItemBySlug, findRequestsOfUser, type CatalogItemRow, type UserApprovalRow } from './catalog.repository.js';
import { AGENT_APPROVAL_FILTERS, type AgentApprovalFilter } from './catalog.rules.js';
import { toView, type CatalogApprovalListItem, type CatalogItemRef } from './catalog-approvals.schemas.js';
import { CATALOG_LIMITS } from './catalog.limits.js';

export async function loadView(em: EntityManager, requestId: string): Promise<CatalogApprovalListItem> {
  return toView((await findApprovalView(em, requestId))!);
}

const refLabel = (ref: CatalogItemRef) => ('slug' in ref ? `catalog item "${ref.slug}"` : `catalog item ${ref.id}`);

/** The row, archived or not; undefined when absent. */
export async function findCatalogItem(em: EntityManager, ref: CatalogItemRef): Promise<CatalogItemRow | undefined> {
  return 'slug' in ref ? findItemBySlug(em, ref.slug) : findItemById(em, ref.id);
}

/** Assign and apply need a live (not archived) row; revoke also reaches archived ones. */
export async function requireLiveItem(em: EntityManager, ref: CatalogItemRef | string): Promise<CatalogItemRow> {
  const r = typeof ref === 'string' ? { slug: ref } : ref;
  const item = await findCatalogItem(em, r);
  if (!item || item.archived_at !== null) throw notFound(refLabel(r));
  return item;
}

export async function requireItem(em: EntityManager, ref: CatalogItemRef): Promise<CatalogItemRow> {
  const item = await findCatalogItem(em, ref);
  if (!item) throw notFound(refLabel(ref));
  return item;
}

/** Creates the access asset of an approved request; returns its id. */
export function grantAsset(em: EntityManager, now: Date, req: { id: string; userId: string; catalogItemId: string }): string {
  return em.create(AccessAsset, { id: randomUUID(), userId: req.userId, catalogItemId: req.catalogItemId, requestId: req.id, status: 'active', createdAt: now })
    .id;
}

/** One user's requests, newest first. */
export async function listRequestsOfUser(
  em: EntityManager,
  userId: string,
  filter: AgentApprovalFilter,
  limit: number = CATALOG_LIMITS.approvalsListMax,
): Promise<UserApprovalRow[]> {
  return findRequestsOfUser(em, userId, AGENT_APPROVAL_FILTERS[filter], limit);
}
