import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { CatalogItem } from './catalog.entity.js';
import { integratorCatalogSlug, LIVE_APPROVED, LIVE_STATUSES } from './catalog.rules.js';
import { CATALOG_LIMITS } from './catalog.limits.js';

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
  const rows = await run<CatalogItemRow>(em, `select * from catalog_items where integrator_id = ? and archived_at is null order by created_at, id limit 1`, [
    integratorId,
  ]);
  return rows[0];
}

export async function findItemBySlug(em: EntityManager, slug: string): Promise<CatalogItemRow | undefined> {
  const rows = await run<CatalogItemRow>(em, `select * from catalog_items where slug = ?`, [slug]);
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
  const rows = await run<RequestRow>(
    em,
    `select * from catalog_requests where user_id = ? and catalog_item_id = ? and status in (${inList(LIVE_APPROVED)}) for update`,
    [userId, itemId],
  );
  return rows[0];
}

export async function findLiveRequest(em: EntityManager, userId: string, itemId: string): Promise<RequestRow | undefined> {
  const rows = await run<RequestRow>(
    em,
    `select * from catalog_requests where user_id = ? and catalog_item_id = ? and status in (${inList(LIVE_STATUSES)}) for update`,
    [userId, itemId],
  );
  return rows[0];
}

/** Serialises concurrent writers on one (user, item-or-integrator) pair inside a transaction. */
export async function lockPair(em: EntityManager, a: string, b: string): Promise<void> {
  await run(em, `select pg_advisory_xact_lock(hashtextextended(? || ':' || ?, 0))`, [a, b]);
}

/** The catalog row of an integrator's inbound tokens (`<slug>.inbound-token`), persisted on the next flush. */
export function createIntegratorCatalogRow(
  em: EntityManager,
  r: {
    integratorSlug: string;
    integratorId: string;
    name: string;
    description: string;
    approvalRequired: boolean;
    contactUserId: string;
    linkedToolsTokenId: string | null;
    now: Date;
  },
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

export async function findItemById(em: EntityManager, id: string): Promise<CatalogItemRow | undefined> {
  const rows = await run<CatalogItemRow>(em, `select * from catalog_items where id = ?`, [id]);
  return rows[0];
}

// ---------------------------------------------------------------------------------------------
// Approvals (catalog_requests, access_assets)

/** A request as the REST approval views show it (requester and reviewer emails, row slug). */
export interface ApprovalViewRow {
  id: string;
  email: string;
  catalog_slug: string | null;
  status: string;
  requested_at: Date | string;
  reviewed_at: Date | string | null;
  reviewed_by_email: string | null;
}

export async function findApprovalView(em: EntityManager, requestId: string): Promise<ApprovalViewRow | undefined> {
  const rows = await run<ApprovalViewRow>(
    em,
    `select r.id, u.email, c.slug as catalog_slug, r.status, r.requested_at, r.reviewed_at, rv.email as reviewed_by_email
       from catalog_requests r join users u on u.id = r.user_id join catalog_items c on c.id = r.catalog_item_id
       left join users rv on rv.id = r.reviewed_by_user_id where r.id = ?`,
    [requestId],
  );
  return rows[0];
}

/** Newest first, at most CATALOG_LIMITS.approvalsListMax; every filter optional (`statuses`: stored statuses, from catalog.rules). */
export async function listApprovalViews(
  em: EntityManager,
  f: { email?: string; catalogSlug?: string; statuses?: readonly string[] },
): Promise<ApprovalViewRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (f.email) {
    where.push('u.email = ?');
    params.push(f.email);
  }
  if (f.catalogSlug) {
    where.push('c.slug = ?');
    params.push(f.catalogSlug);
  }
  if (f.statuses) where.push(`r.status in (${inList(f.statuses)})`);
  // Read outside the caller's transaction, as the list always has.
  return (await em.getConnection().execute(
    `select r.id, u.email, c.slug as catalog_slug, r.status, r.requested_at, r.reviewed_at, rv.email as reviewed_by_email
       from catalog_requests r join users u on u.id = r.user_id join catalog_items c on c.id = r.catalog_item_id
       left join users rv on rv.id = r.reviewed_by_user_id
      ${where.length ? `where ${where.join(' and ')}` : ''}
      order by r.requested_at desc, r.id limit ${CATALOG_LIMITS.approvalsListMax}`,
    params,
  )) as ApprovalViewRow[];
}

/** A pending request becomes approved by `actorUserId` (the REST assign of a pending pair). */
export async function approvePendingRequest(em: EntityManager, requestId: string, actorUserId: string, now: Date): Promise<void> {
  await em
    .getConnection()
    .execute(
      `update catalog_requests set status = 'approved', reviewed_at = ?::timestamptz, reviewed_by_user_id = ?, updated_at = ?::timestamptz where id = ?`,
      [now.toISOString(), actorUserId, now.toISOString(), requestId],
      'run',
      em.getTransactionContext(),
    );
}

/**
 * Revokes an approval: the request, its active access assets and the personal tokens claimed
 * under it (active or disabled). Returns the ids of the tokens revoked.
 */
export async function revokeApprovalCascade(em: EntityManager, approvalId: string, now: string): Promise<string[]> {
  const conn = em.getConnection();
  const tx = em.getTransactionContext();
  await conn.execute(`update catalog_requests set status = 'revoked', updated_at = ?::timestamptz where id = ?`, [now, approvalId], 'run', tx);
  await conn.execute(
    `update access_assets set status = 'revoked', revoked_at = ?::timestamptz where request_id = ? and status = 'active'`,
    [now, approvalId],
    'run',
    tx,
  );
  const tokens = (await conn.execute(
    `update inbound_tokens set status = 'revoked', revoked_at = ?::timestamptz, revoked_reason = 'catalog approval revoked'
      where approval_id = ? and status in ('active', 'disabled') returning id`,
    [now, approvalId],
    'all',
    tx,
  )) as { id: string }[];
  return tokens.map((t) => t.id);
}

export interface UserApprovalRow {
  id: string;
  catalog_slug: string | null;
  catalog_name: string;
  status: string;
  requested_at: Date | string;
  reviewed_at: Date | string | null;
  reviewed_by_email: string | null;
}

/** One user's requests, newest first; `statuses` null: every status. */
export async function findRequestsOfUser(em: EntityManager, userId: string, statuses: readonly string[] | null, limit: number): Promise<UserApprovalRow[]> {
  return run<UserApprovalRow>(
    em,
    `select r.id, c.slug as catalog_slug, c.name as catalog_name, r.status, r.requested_at, r.reviewed_at, rv.email as reviewed_by_email
       from catalog_requests r join catalog_items c on c.id = r.catalog_item_id join users u on u.id = r.user_id
       left join users rv on rv.id = r.reviewed_by_user_id
      where r.user_id = ? and (?::text[] is null or r.status = any(?::text[]))
      order by r.requested_at desc, r.id limit ?`,
    [userId, statuses ? `{${statuses.join(',')}}` : null, statuses ? `{${statuses.join(',')}}` : null, limit],
  );
}

export interface PendingRequestRow {
  id: string;
  catalog_item_id: string;
  status: string;
  catalog_slug: string | null;
  catalog_name: string;
  user_id: string;
  email: string;
  name: string;
  note: string | null;
  requested_at: Date | string;
  updated_at: Date | string;
  created_by_email: string | null;
}

/** Pending requests, oldest first (the review queue), optionally for one row or one user. */
export async function listPendingRequests(em: EntityManager, f: { catalogItemId?: string; userId?: string }, limit: number): Promise<PendingRequestRow[]> {
  return run<PendingRequestRow>(
    em,
    `select r.id, r.catalog_item_id, r.status, c.slug as catalog_slug, c.name as catalog_name, u.id as user_id, u.email, u.name, r.note, r.requested_at,
            r.updated_at, cb.email as created_by_email
       from catalog_requests r join catalog_items c on c.id = r.catalog_item_id join users u on u.id = r.user_id
       left join users cb on cb.id = r.created_by_user_id
      where r.status = 'pending' and (?::uuid is null or r.catalog_item_id = ?) and (?::uuid is null or r.user_id = ?)
      order by r.requested_at, r.id limit ?`,
    [f.catalogItemId ?? null, f.catalogItemId ?? null, f.userId ?? null, f.userId ?? null, limit],
  );
}

// ---------------------------------------------------------------------------------------------
// The catalog a person uses (CatalogPortalService)

/** A request as its applicant sees it (row name, the reviewer's note). */
export interface OwnRequestRow {
  id: string;
  user_id: string;
  user_email: string;
  catalog_item_id: string;
  catalog_slug: string | null;
  catalog_name: string;
  status: string;
  note: string | null;
  requested_at: Date | string;
  reviewed_at: Date | string | null;
  review_note: string | null;
  reviewed_by_email: string | null;
  updated_at: Date | string;
}

const OWN_REQUEST_COLUMNS = `r.id, r.user_id, u.email as user_email, r.catalog_item_id, c.slug as catalog_slug, c.name as catalog_name, r.status, r.note, r.requested_at,
       r.reviewed_at, r.review_note, rv.email as reviewed_by_email, r.updated_at`;

export async function findOwnRequestRow(em: EntityManager, requestId: string): Promise<OwnRequestRow | undefined> {
  const rows = await run<OwnRequestRow>(
    em,
    `select ${OWN_REQUEST_COLUMNS}
       from catalog_requests r join catalog_items c on c.id = r.catalog_item_id join users u on u.id = r.user_id
       left join users rv on rv.id = r.reviewed_by_user_id
      where r.id = ?`,
    [requestId],
  );
  return rows[0];
}

/** One user's requests, newest first. */
export async function findOwnRequestRows(em: EntityManager, userId: string, limit: number): Promise<OwnRequestRow[]> {
  return run<OwnRequestRow>(
    em,
    `select ${OWN_REQUEST_COLUMNS}
       from catalog_requests r join catalog_items c on c.id = r.catalog_item_id join users u on u.id = r.user_id
       left join users rv on rv.id = r.reviewed_by_user_id
      where r.user_id = ?
      order by r.requested_at desc, r.id limit ?`,
    [userId, limit],
  );
}

/** A live catalog row with its contact and the caller's latest request for it (a live one first), if any. */
export interface CatalogRowWithOwnRequest
  extends Pick<
    CatalogItemRow,
    'id' | 'slug' | 'name' | 'type' | 'description' | 'category' | 'url' | 'application_guide' | 'approval_required' | 'is_pinned' | 'contact_user_id'
  > {
  contact_email: string | null;
  contact_name: string | null;
  request_id: string | null;
  request_status: string | null;
  request_note: string | null;
  requested_at: Date | string | null;
  reviewed_at: Date | string | null;
  review_note: string | null;
  reviewed_by_email: string | null;
  request_updated_at: Date | string | null;
}

/** The live catalog (never archived rows) in display order, each row with the caller's own request. */
export async function findCatalogWithOwnRequests(em: EntityManager, userId: string, limit: number): Promise<CatalogRowWithOwnRequest[]> {
  return run<CatalogRowWithOwnRequest>(
    em,
    `select c.id, c.slug, c.name, c.type, c.description, c.category, c.url, c.application_guide, c.approval_required, c.is_pinned,
            cu.id as contact_user_id, cu.email as contact_email, cu.name as contact_name,
            r.id as request_id, r.status as request_status, r.note as request_note, r.requested_at, r.reviewed_at, r.review_note,
            rv.email as reviewed_by_email, r.updated_at as request_updated_at
       from catalog_items c
       left join users cu on cu.id = c.contact_user_id
       left join lateral (
         select * from catalog_requests q where q.user_id = ? and q.catalog_item_id = c.id
          order by (q.status in (${inList(LIVE_STATUSES)})) desc, q.requested_at desc, q.id limit 1
       ) r on true
       left join users rv on rv.id = r.reviewed_by_user_id
      where c.archived_at is null
      order by c.display_order, c.name, c.id limit ?`,
    [userId, limit],
  );
}

/**
 * The admins (active, admin roles) to tell of a new request for a catalog row: each at most once
 * per `windowMinutes` per row. One statement claims the slots (catalog_review_alerts), so
 * concurrent requests for the same row tell each admin once; it takes the admins' rows in id
 * order, so two of them do not deadlock. `except`: the applicant and whoever filed the request.
 */
export async function claimReviewAlerts(
  em: EntityManager,
  itemId: string,
  adminRoles: readonly string[],
  except: readonly string[],
  now: Date,
  windowMinutes: number,
): Promise<string[]> {
  const rows = await run<{ admin_user_id: string }>(
    em,
    `insert into catalog_review_alerts (admin_user_id, catalog_item_id, notified_at)
     select u.id, ?, ?::timestamptz from users u
      where u.role = any(?::text[]) and u.status = 'active' and u.id <> all(?::uuid[])
      order by u.id
     on conflict (admin_user_id, catalog_item_id) do update set notified_at = excluded.notified_at
      where catalog_review_alerts.notified_at <= excluded.notified_at - make_interval(mins => ?)
     returning admin_user_id`,
    [itemId, now.toISOString(), `{${adminRoles.join(',')}}`, `{${except.join(',')}}`, windowMinutes],
  );
  return rows.map((r) => r.admin_user_id);
}

// ---------------------------------------------------------------------------------------------
// Catalog item management (items.ts)

/** The row, locked for the rest of the transaction (patch, archive and delete serialise on it). */
export async function lockItem(em: EntityManager, ref: { slug: string } | { id: string }): Promise<CatalogItemRow | undefined> {
  const rows =
    'slug' in ref
      ? await run<CatalogItemRow>(em, `select * from catalog_items where slug = ? for update`, [ref.slug])
      : await run<CatalogItemRow>(em, `select * from catalog_items where id = ? for update`, [ref.id]);
  return rows[0];
}

/** A tools-token (by id) as a link target: its integrator and owner; undefined for any other id. */
export async function findToolsTokenLink(em: EntityManager, tokenId: string): Promise<{ integrator_id: string; owner_user_id: string } | undefined> {
  const rows = await run<{ integrator_id: string; owner_user_id: string }>(
    em,
    `select integrator_id, owner_user_id from inbound_tokens where id = ? and kind = 'tools_claim'`,
    [tokenId],
  );
  return rows[0];
}

export interface NewCatalogItem {
  slug: string;
  name: string;
  type: string;
  description: string | null;
  category: string | null;
  url: string | null;
  applicationGuide: string | null;
  useCases: unknown[];
  isPinned: boolean;
  approvalRequired: boolean;
  displayOrder: number;
  contactUserId: string | null;
  linkedToolsTokenId: string | null;
  integratorId: string | null;
  now: string;
}

/** Inserts a live row; undefined when the slug is taken (ON CONFLICT, so a concurrent create loses cleanly). */
export async function insertItemUnlessSlugTaken(em: EntityManager, r: NewCatalogItem): Promise<CatalogItemRow | undefined> {
  const rows = await run<CatalogItemRow>(
    em,
    `insert into catalog_items (id, slug, name, type, description, category, url, application_guide, use_cases, is_pinned,
           approval_required, display_order, contact_user_id, linked_tools_token_id, integrator_id, archived_at, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, null, ?::timestamptz, ?::timestamptz)
         on conflict (slug) do nothing returning *`,
    [
      randomUUID(),
      r.slug,
      r.name,
      r.type,
      r.description,
      r.category,
      r.url,
      r.applicationGuide,
      JSON.stringify(r.useCases),
      r.isPinned,
      r.approvalRequired,
      r.displayOrder,
      r.contactUserId,
      r.linkedToolsTokenId,
      r.integratorId,
      r.now,
      r.now,
    ],
  );
  return rows[0];
}

export interface CatalogItemRowFilter {
  active_only: boolean;
  category?: string;
  type?: string;
  integrator_slug?: string;
  limit: number;
}

/** Ordered by display_order then name; `totalCount` covers every matching row (taken before LIMIT). */
export async function listItemRows(em: EntityManager, f: CatalogItemRowFilter): Promise<{ rows: CatalogItemRow[]; totalCount: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (f.active_only) where.push('c.archived_at is null');
  if (f.category !== undefined) {
    where.push('c.category = ?');
    params.push(f.category);
  }
  if (f.type !== undefined) {
    where.push('c.type = ?');
    params.push(f.type);
  }
  if (f.integrator_slug !== undefined) {
    where.push('c.integrator_id = (select i.id from integrators i where i.slug = ?)');
    params.push(f.integrator_slug);
  }
  const rows = await run<CatalogItemRow & { total_count: string | number }>(
    em,
    `select c.*, count(*) over () as total_count from catalog_items c
      ${where.length ? `where ${where.join(' and ')}` : ''}
      order by c.display_order, c.name, c.id limit ?`,
    [...params, f.limit],
  );
  const totalCount = rows.length === 0 ? 0 : Number(rows[0]!.total_count);
  return { rows: rows.map(({ total_count: _t, ...r }) => r), totalCount };
}

/** The columns a patch may change; request keys of the update body are these names (SPEC spells them snake_case). */
export const ITEM_UPDATABLE_COLUMNS = [
  'name',
  'description',
  'category',
  'url',
  'application_guide',
  'use_cases',
  'display_order',
  'is_pinned',
  'approval_required',
  'contact_user_id',
  'linked_tools_token_id',
] as const;
export type ItemUpdatableColumn = (typeof ITEM_UPDATABLE_COLUMNS)[number];

/**
 * Sets the given columns (undefined ones are left alone), `integrator_id` when not null, and
 * `updated_at`; returns the updated row.
 */
export async function updateItemRow(
  em: EntityManager,
  itemId: string,
  patch: Partial<Record<ItemUpdatableColumn, unknown>>,
  integratorId: string | null,
  now: string,
): Promise<CatalogItemRow> {
  const sets: string[] = [];
  const params: unknown[] = [];
  for (const col of ITEM_UPDATABLE_COLUMNS) {
    const v = patch[col];
    if (v === undefined) continue;
    if (col === 'use_cases') {
      sets.push(`use_cases = ?::jsonb`);
      params.push(JSON.stringify(v));
    } else {
      sets.push(`${col} = ?`);
      params.push(v);
    }
  }
  if (integratorId !== null) {
    sets.push('integrator_id = ?');
    params.push(integratorId);
  }
  sets.push('updated_at = ?::timestamptz');
  params.push(now);
  const updated = await run<CatalogItemRow>(em, `update catalog_items set ${sets.join(', ')} where id = ? returning *`, [...params, itemId]);
  return updated[0]!;
}

export async function archiveItemRow(em: EntityManager, itemId: string, now: string): Promise<CatalogItemRow> {
  const rows = await run<CatalogItemRow>(em, `update catalog_items set archived_at = ?::timestamptz, updated_at = ?::timestamptz where id = ? returning *`, [
    now,
    now,
    itemId,
  ]);
  return rows[0]!;
}

/** Live dependents of a row (SPEC CatalogItemDeleteBlockers): they refuse a hard delete. */
export async function countLiveDependents(
  em: EntityManager,
  item: Pick<CatalogItemRow, 'id' | 'linked_tools_token_id'>,
): Promise<{ liveApprovals: number; liveAssets: number; liveTokens: number }> {
  const rows = await run<{ live_approvals: string | number; live_assets: string | number; live_tokens: string | number }>(
    em,
    `select
       (select count(*) from catalog_requests where catalog_item_id = ? and status in (${inList(LIVE_STATUSES)})) as live_approvals,
       (select count(*) from access_assets where catalog_item_id = ? and status = 'active') as live_assets,
       (select count(*) from inbound_tokens t where t.status = 'active'
          and (t.approval_id in (select r.id from catalog_requests r where r.catalog_item_id = ?) or t.id = ?)) as live_tokens`,
    [item.id, item.id, item.id, item.linked_tools_token_id],
  );
  const r = rows[0]!;
  return { liveApprovals: Number(r.live_approvals), liveAssets: Number(r.live_assets), liveTokens: Number(r.live_tokens) };
}

/**
 * Hard delete of a row with no live dependents: the dead ones (terminal requests, revoked assets,
 * the approval link of revoked or disabled tokens) go first, so no foreign key refuses the row.
 */
export async function deleteItemWithDeadDependents(em: EntityManager, itemId: string): Promise<void> {
  const ofItem = `select r.id from catalog_requests r where r.catalog_item_id = ?`;
  await run(em, `update inbound_tokens set approval_id = null where approval_id in (${ofItem})`, [itemId]);
  await run(em, `delete from access_assets where catalog_item_id = ? or request_id in (${ofItem})`, [itemId, itemId]);
  await run(em, `delete from catalog_requests where catalog_item_id = ?`, [itemId]);
  await run(em, `delete from catalog_review_alerts where catalog_item_id = ?`, [itemId]);
  await run(em, `delete from catalog_items where id = ?`, [itemId]);
}

/** Links an integrator's row to a tools-token (the integrator's first tools-token, on a row that had none). */
export async function linkItemToToolsToken(em: EntityManager, itemId: string, toolsTokenId: string): Promise<void> {
  await em
    .getConnection()
    .execute(`update catalog_items set linked_tools_token_id = ? where id = ?`, [toolsTokenId, itemId], 'run', em.getTransactionContext());
}
