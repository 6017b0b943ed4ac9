import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { CatalogItem } from './catalog.entity.js';
import { integratorCatalogSlug, LIVE_APPROVED, LIVE_STATUSES } from './catalog.rules.js';

const exec = <T>(em: EntityManager, sql: string, params: unknown[]) =>
  em.getConnection().execute(sql, params, 'all', em.getTransactionContext()) as Promise<T[]>;

export interface CatalogItemRow {
  id: string;
  slug: string | null;
  name: string;
  type: string;
  description: string | null;
  category: string | null;
  url: string | null;
  application_guide: string | null;
  use_cases: unknown[];
  is_pinned: boolean;
  approval_required: boolean;
  display_order: number;
  contact_user_id: string | null;
  linked_tools_token_id: string | null;
  integrator_id: string | null;
  archived_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** The catalog row an integrator's claims are checked against (its oldest live row). */
export async function findItemForIntegrator(em: EntityManager, integratorId: string): Promise<CatalogItemRow | undefined> {
  const rows = await exec<CatalogItemRow>(em, `select * from catalog_items where integrator_id = ? and archived_at is null order by created_at, id limit 1`, [integratorId]);
  return rows[0];
}

export async function findItemBySlug(em: EntityManager, slug: string): Promise<CatalogItemRow | undefined> {
  const rows = await exec<CatalogItemRow>(em, `select * from catalog_items where slug = ?`, [slug]);
  return rows[0];
}

export interface RequestRow {
  id: string;
  user_id: string;
  catalog_item_id: string;
  status: string;
  requested_at: Date | string;
  reviewed_at: Date | string | null;
  reviewed_by_user_id: string | null;
}

const inList = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

export async function findLiveApproval(em: EntityManager, userId: string, itemId: string): Promise<RequestRow | undefined> {
  const rows = await exec<RequestRow>(
    em,
    `select * from catalog_requests where user_id = ? and catalog_item_id = ? and status in (${inList(LIVE_APPROVED)}) for update`,
    [userId, itemId],
  );
  return rows[0];
}

export async function findLiveRequest(em: EntityManager, userId: string, itemId: string): Promise<RequestRow | undefined> {
  const rows = await exec<RequestRow>(
    em,
    `select * from catalog_requests where user_id = ? and catalog_item_id = ? and status in (${inList(LIVE_STATUSES)}) for update`,
    [userId, itemId],
  );
  return rows[0];
}

/** Serialises concurrent writers on one (user, item-or-integrator) pair inside a transaction. */
export async function lockPair(em: EntityManager, a: string, b: string): Promise<void> {
  await em.getConnection().execute(`select pg_advisory_xact_lock(hashtextextended(? || ':' || ?, 0))`, [a, b], 'all', em.getTransactionContext());
}

/** The catalog row of an integrator's inbound tokens (`<slug>.inbound-token`), persisted on the next flush. */
export function createIntegratorCatalogRow(
  em: EntityManager,
  r: { integratorSlug: string; integratorId: string; name: string; description: string; approvalRequired: boolean; contactUserId: string; linkedToolsTokenId: string | null; now: Date },
): CatalogItem {
  return em.create(CatalogItem, {
    id: randomUUID(),
    slug: integratorCatalogSlug(r.integratorSlug),
    name: r.name,
    type: 'api_key',
    description: r.description,
    category: 'inbound-integration',
    url: null,
    applicationGuide: null,
    useCases: [],
    isPinned: false,
    approvalRequired: r.approvalRequired,
    displayOrder: 0,
    contactUserId: r.contactUserId,
    linkedToolsTokenId: r.linkedToolsTokenId,
    integratorId: r.integratorId,
    createdAt: r.now,
    updatedAt: r.now,
  });
}
