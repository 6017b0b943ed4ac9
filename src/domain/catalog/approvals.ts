// Catalog approvals (SPEC "Catalog approval", "Catalog approval status"): admin assign (bypasses
// review, idempotent), list, revoke (cascades to personal tokens claimed under the approval),
// review of pending requests, and an operator "apply" that files a pending request. The
// `*InTransaction` cores and the lookups below are shared with the agent tools (domain/agent/),
// which add the agent-side status vocabulary (pending, approved, in_execution, completed, ...).
import { randomUUID } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { DomainError, notFound } from '../errors.js';
import { AUDIT, recordAudit } from '../audit/audit.js';
import { addNotification } from '../inbox/notify.js';
import { iso } from '../timestamps.js';
import { requireAdminToolsToken } from '../tokens/tools-access.rules.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { AccessAsset, CatalogRequest } from './catalog.entity.js';
import {
  approvePendingRequest,
  findApprovalView,
  findItemById,
  findItemBySlug,
  findLiveApproval,
  findLiveRequest,
  findRequestsOfUser,
  listApprovalViews,
  lockPair,
  revokeApprovalCascade,
  type ApprovalViewRow,
  type CatalogItemRow,
  type RequestRow,
  type UserApprovalRow,
} from './catalog.repository.js';
import { LIVE_APPROVED, REST_APPROVAL_STATUSES, restApprovalStatus, storedStatusesFor } from './catalog.rules.js';

export const CatalogApprovalListItemSchema = z.strictObject({
  id: z.uuid(),
  email: z.string(),
  catalogSlug: z.string(),
  status: z.enum(REST_APPROVAL_STATUSES),
  requestedAt: z.iso.datetime(),
  reviewedAt: z.iso.datetime().nullable(),
  reviewedByEmail: z.string().nullable(),
});
export type CatalogApprovalListItem = z.infer<typeof CatalogApprovalListItemSchema>;

export const CatalogApprovalAssignRequestSchema = z.strictObject({
  email: z.email({ error: 'must be a valid email address' }).max(120),
  catalog_slug: z.string().min(1).max(80),
});

async function loadView(em: EntityManager, requestId: string): Promise<CatalogApprovalListItem> {
  return toView((await findApprovalView(em, requestId))!);
}

const toView = (r: ApprovalViewRow): CatalogApprovalListItem => ({
  id: r.id,
  email: r.email,
  catalogSlug: r.catalog_slug ?? '',
  status: restApprovalStatus(r.status),
  requestedAt: iso(r.requested_at),
  reviewedAt: r.reviewed_at === null ? null : iso(r.reviewed_at),
  reviewedByEmail: r.reviewed_by_email,
});

/** A catalog row addressed by slug or by id (the agent tools take either, exactly one). */
export type CatalogItemRef = { slug: string } | { id: string };

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
function grantAsset(em: EntityManager, now: Date, req: { id: string; userId: string; catalogItemId: string }): string {
  return em.create(AccessAsset, { id: randomUUID(), userId: req.userId, catalogItemId: req.catalogItemId, requestId: req.id, status: 'active', createdAt: now })
    .id;
}

export interface AssignOptions {
  /** Stored on a new request row (default: "assigned by an admin"). */
  note?: string;
  /**
   * Agent tool rule (SPEC "Catalog approval status"): a pending row is reused as it is and reported
   * idempotent. The REST assign approves a pending row instead.
   */
  reusePending?: boolean;
}

export interface AssignOutcome {
  requestId: string;
  idempotent: boolean;
  /** Stored (agent-side) status after the call. */
  status: string;
}

/**
 * Approve-or-create in the caller's transaction (a writing operation's `em`); reused by the agent
 * tool `assign_catalog_to_employee`.
 */
export async function assignInTransaction(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock'>,
  actorUserId: string,
  item: CatalogItemRow,
  userId: string,
  opts: AssignOptions = {},
): Promise<AssignOutcome> {
  await lockPair(em, userId, item.id);
  const now = ctx.clock.now();
  const live = await findLiveRequest(em, userId, item.id);
  if (live && (live.status !== 'pending' || opts.reusePending)) return { requestId: live.id, idempotent: true, status: live.status };
  if (live) {
    await approvePendingRequest(em, live.id, actorUserId, now);
    grantAsset(em, now, { id: live.id, userId, catalogItemId: item.id });
    return { requestId: live.id, idempotent: false, status: 'approved' };
  }
  const req = em.create(CatalogRequest, {
    id: randomUUID(),
    userId,
    catalogItemId: item.id,
    status: 'approved',
    note: opts.note ?? 'assigned by an admin',
    requestedAt: now,
    reviewedAt: now,
    reviewedByUserId: actorUserId,
    createdByUserId: actorUserId,
    updatedAt: now,
  });
  // Scalar foreign keys: the request row must exist before its asset (one flush would insert the
  // asset first).
  await em.flush();
  grantAsset(em, now, { id: req.id, userId, catalogItemId: item.id });
  return { requestId: req.id, idempotent: false, status: 'approved' };
}

export const assignCatalogApproval = defineOperation<z.infer<typeof CatalogApprovalAssignRequestSchema>, CatalogApprovalListItem, InboundTokenPrincipal>({
  name: 'catalog.approvals.assign',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  idempotent: true,
  writes: true,
  input: CatalogApprovalAssignRequestSchema,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const item = await requireLiveItem(ctx.em, input.catalog_slug);
    const user = await requireUserByEmail(ctx.em, input.email);
    const { requestId } = await assignInTransaction(ctx.em, ctx, ctx.principal.userId, item, user.id);
    return loadView(ctx.em, requestId);
  },
});

export const ListApprovalsInput = z.strictObject({
  email: z.email({ error: 'must be a valid email address' }).max(120).optional(),
  catalog_slug: z.string().min(1).max(80).optional(),
  status: z.enum(REST_APPROVAL_STATUSES).optional(),
});

export const listCatalogApprovals = defineOperation<
  z.infer<typeof ListApprovalsInput>,
  { items: CatalogApprovalListItem[]; requestId: string },
  InboundTokenPrincipal
>({
  name: 'catalog.approvals.list',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  idempotent: false,
  input: ListApprovalsInput,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const rows = await listApprovalViews(ctx.em, {
      email: input.email?.toLowerCase(),
      catalogSlug: input.catalog_slug,
      statuses: input.status ? storedStatusesFor(input.status) : undefined,
    });
    return { items: rows.map(toView), requestId: ctx.requestId };
  },
});

export interface RevokeOutcome {
  revoked: boolean;
  tokensInvalidated: number;
  approvalId: string | null;
}

/**
 * Revoke in the caller's transaction; an idempotent repeat changes nothing and notifies no one. With
 * `onlyApprovalId` (the agent tool addressed by `approval_id`) only that request is revoked: when
 * it is no longer the live approval of the pair, the call is a no-op.
 */
export async function revokeInTransaction(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock' | 'surface' | 'requestId' | 'config'>,
  actorUserId: string,
  item: CatalogItemRow,
  userId: string,
  notify: boolean,
  onlyApprovalId?: string,
): Promise<RevokeOutcome> {
  await lockPair(em, userId, item.id);
  const approval: RequestRow | undefined = await findLiveApproval(em, userId, item.id);
  if (!approval || (onlyApprovalId !== undefined && approval.id !== onlyApprovalId)) return { revoked: false, tokensInvalidated: 0, approvalId: null };
  const now = ctx.clock.now().toISOString();
  const tokenIds = await revokeApprovalCascade(em, approval.id, now);
  for (const id of tokenIds)
    recordAudit(em, ctx, {
      action: AUDIT.tokenRevoked,
      actorUserId,
      tokenId: id,
      targetType: 'inbound_token',
      targetId: id,
      summary: { reason: 'catalog approval revoked', approval_id: approval.id },
    });
  if (notify) {
    addNotification(em, ctx.clock.now(), {
      userId,
      title: `🔒 ${item.name}: access revoked`,
      summary: 'An admin revoked your access to this catalog item.',
      targetUrl: `${ctx.config.publicBaseUrl}/team-support?tab=assets`,
      actorUserId,
    });
  }
  return { revoked: true, tokensInvalidated: tokenIds.length, approvalId: approval.id };
}

export const RevokeApprovalInput = CatalogApprovalAssignRequestSchema.extend({ notify_employee: z.boolean().default(true) });

export const revokeCatalogApproval = defineOperation<
  z.infer<typeof RevokeApprovalInput>,
  { revoked: boolean; tokensInvalidated: number },
  InboundTokenPrincipal
>({
  name: 'catalog.approvals.revoke',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  idempotent: true,
  writes: true,
  input: RevokeApprovalInput,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const item = await findItemBySlug(ctx.em, input.catalog_slug);
    if (!item) throw notFound(`catalog item "${input.catalog_slug}"`);
    const user = await requireUserByEmail(ctx.em, input.email);
    const r = await revokeInTransaction(ctx.em, ctx, ctx.principal.userId, item, user.id, input.notify_employee);
    return { revoked: r.revoked, tokensInvalidated: r.tokensInvalidated };
  },
});

export const CatalogApprovalReviewRequestSchema = z.strictObject({
  request_id: z.uuid({ error: 'must be a UUID' }),
  decision: z.enum(['approve', 'reject']),
  note: z.string().max(500).optional(),
});

/**
 * Approve or reject a pending request in the caller's transaction (REST review and the agent tool
 * `approve_team_support_request`). Returns the access asset created by an approval. The changes
 * are in the unit of work: flush before reading them back with SQL.
 */
export async function reviewInTransaction(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock'>,
  actorUserId: string,
  requestId: string,
  decision: 'approve' | 'reject',
  note?: string,
): Promise<{ request: CatalogRequest; accessAssetId: string | null }> {
  const req = await em.findOne(CatalogRequest, { id: requestId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!req) throw notFound('request');
  if (req.status !== 'pending') throw new DomainError('conflict', `request is ${restApprovalStatus(req.status)}, not pending`, { code: 'not_pending' });
  const now = ctx.clock.now();
  req.status = decision === 'approve' ? 'approved' : 'rejected';
  req.reviewedAt = now;
  req.reviewedByUserId = actorUserId;
  req.reviewNote = note ?? null;
  req.updatedAt = now;
  const accessAssetId = decision === 'approve' ? grantAsset(em, now, req) : null;
  return { request: req, accessAssetId };
}

export const reviewCatalogApproval = defineOperation<z.infer<typeof CatalogApprovalReviewRequestSchema>, CatalogApprovalListItem, InboundTokenPrincipal>({
  name: 'catalog.approvals.review',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'publish',
  idempotent: true,
  writes: true,
  input: CatalogApprovalReviewRequestSchema,
  handler: async (input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    const { request } = await reviewInTransaction(ctx.em, ctx, ctx.principal.userId, input.request_id, input.decision, input.note);
    // The view is read with SQL: the review must be written first.
    await ctx.em.flush();
    return loadView(ctx.em, request.id);
  },
});

export const ApplyInput = z.strictObject({ email: z.email().max(120), catalog_slug: z.string().min(1).max(80), note: z.string().max(500).optional() });

/**
 * Files a pending request for `userId` in the caller's transaction, or returns the live one the pair
 * already has (`created` false). `createdByUserId` is the employee, or the admin filing on their
 * behalf.
 */
export async function applyInTransaction(
  em: EntityManager,
  ctx: Pick<OpContext, 'clock'>,
  item: CatalogItemRow,
  userId: string,
  opts: { note?: string | null; createdByUserId: string },
): Promise<{ requestId: string; status: string; created: boolean }> {
  await lockPair(em, userId, item.id);
  const live = await findLiveRequest(em, userId, item.id);
  if (live) return { requestId: live.id, status: live.status, created: false };
  const now = ctx.clock.now();
  const req = em.create(CatalogRequest, {
    id: randomUUID(),
    userId,
    catalogItemId: item.id,
    status: 'pending',
    note: opts.note ?? null,
    requestedAt: now,
    createdByUserId: opts.createdByUserId,
    updatedAt: now,
  });
  return { requestId: req.id, status: 'pending', created: true };
}

/** An employee's application (operator CLI until the web flow exists): a pending request. */
export const applyForCatalogItem = defineOperation<z.infer<typeof ApplyInput>, { requestId: string; status: string }>({
  name: 'catalog.requests.create',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: ApplyInput,
  handler: async (input, ctx) => {
    const item = await requireLiveItem(ctx.em, input.catalog_slug);
    const user = await requireUserByEmail(ctx.em, input.email);
    const r = await applyInTransaction(ctx.em, ctx, item, user.id, { note: input.note, createdByUserId: user.id });
    return { requestId: r.requestId, status: restApprovalStatus(r.status) };
  },
});

// ---------------------------------------------------------------------------------------------
// Agent-side reads (status vocabulary of SPEC "Catalog approval status": stored statuses as they are)

/** `list_approvals_for_user` filter -> stored statuses (`all`: no filter). */
export const AGENT_APPROVAL_FILTERS = {
  approved: [...LIVE_APPROVED],
  revoked: ['withdrawn', 'rejected', 'cancelled', 'revoked'],
  pending: ['pending'],
  all: null,
} as const satisfies Record<string, readonly string[] | null>;
export type AgentApprovalFilter = keyof typeof AGENT_APPROVAL_FILTERS;

/** One user's requests, newest first. */
export async function listRequestsOfUser(em: EntityManager, userId: string, filter: AgentApprovalFilter, limit = 500): Promise<UserApprovalRow[]> {
  return findRequestsOfUser(em, userId, AGENT_APPROVAL_FILTERS[filter], limit);
}
