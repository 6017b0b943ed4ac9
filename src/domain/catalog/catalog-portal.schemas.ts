// Shapes of the catalog a person uses (CatalogPortalService; docs/contract.md "Catalog for people"):
// the operations' inputs, the views they answer, and the row -> view mappings. Every limit is
// CATALOG_LIMITS'; the review input is the REST review's own schema (one set of rules).
import { z } from 'zod';
import { iso, isoOrNull } from '../timestamps.js';
import type { CatalogRowWithOwnRequest, OwnRequestRow, PendingRequestRow } from './catalog.repository.js';
import { ownRequestStatus, rowStatusOf, type OwnRequestStatus, type RowStatus } from './catalog.rules.js';
import { catalogRefFields, exactlyOne } from './catalog-ref.rules.js';
import { CATALOG_LIMITS } from './catalog.limits.js';

/** Agent tokens need these scopes (a web session holds every scope). */
export const PORTAL_SCOPES = { read: 'read:catalog', write: 'write:catalog', review: 'admin:approvals' } as const;

export const ListCatalogInput = z.strictObject({});

export const FileOwnRequestInput = z
  .strictObject({ ...catalogRefFields, note: z.string().max(CATALOG_LIMITS.noteMax).optional() })
  .superRefine(exactlyOne('catalog_id', 'catalog_slug'));

export const WithdrawOwnRequestInput = z.strictObject({ request_id: z.uuid({ error: 'must be a UUID' }) });

export const ListOwnRequestsInput = z.strictObject({
  limit: z.number().int().min(1).max(CATALOG_LIMITS.ownRequestsListMax).default(CATALOG_LIMITS.ownRequestsListDefault),
});

export const ListReviewQueueInput = z.strictObject({
  limit: z.number().int().min(1).max(CATALOG_LIMITS.pendingListMax).default(CATALOG_LIMITS.pendingListDefault),
});

/** One person's request for a catalog row, as its applicant (or a reviewer) sees it. */
export interface OwnRequestView {
  id: string;
  catalogItemId: string;
  catalogSlug: string | null;
  catalogName: string;
  status: OwnRequestStatus;
  note: string | null;
  requestedAt: string;
  reviewedAt: string | null;
  reviewNote: string | null;
  reviewedByEmail: string | null;
  /** Last change: filed, reviewed, withdrawn or revoked. */
  updatedAt: string;
}

export const ownRequestView = (r: Omit<OwnRequestRow, 'user_id' | 'user_email'>): OwnRequestView => ({
  id: r.id,
  catalogItemId: r.catalog_item_id,
  catalogSlug: r.catalog_slug,
  catalogName: r.catalog_name,
  status: ownRequestStatus(r.status),
  note: r.note,
  requestedAt: iso(r.requested_at),
  reviewedAt: isoOrNull(r.reviewed_at),
  reviewNote: r.review_note,
  reviewedByEmail: r.reviewed_by_email,
  updatedAt: iso(r.updated_at),
});

export interface PersonView {
  userId: string;
  email: string;
  name: string;
}

/** A live catalog row and the caller's own status for it. */
export interface CatalogEntryView {
  id: string;
  slug: string | null;
  name: string;
  type: string;
  description: string | null;
  applicationGuide: string | null;
  url: string | null;
  contact: PersonView | null;
  approvalRequired: boolean;
  isPinned: boolean;
  myStatus: RowStatus;
  /** The request the status comes from; null for `none`. */
  myRequest: OwnRequestView | null;
}

export interface CatalogGroupView {
  /** The category slug as stored; '' for the rows without one. */
  category: string;
  display: string;
  entries: CatalogEntryView[];
}

export function catalogEntryView(r: CatalogRowWithOwnRequest): CatalogEntryView {
  const status = rowStatusOf(r.request_status);
  return {
    id: r.id,
    slug: r.slug,
    name: r.name,
    type: r.type,
    description: r.description,
    applicationGuide: r.application_guide,
    url: r.url,
    contact: r.contact_user_id === null ? null : { userId: r.contact_user_id, email: r.contact_email!, name: r.contact_name! },
    approvalRequired: r.approval_required,
    isPinned: r.is_pinned,
    myStatus: status,
    myRequest:
      status === 'none' || r.request_id === null
        ? null
        : ownRequestView({
            id: r.request_id,
            catalog_item_id: r.id,
            catalog_slug: r.slug,
            catalog_name: r.name,
            status: r.request_status!,
            note: r.request_note,
            requested_at: r.requested_at!,
            reviewed_at: r.reviewed_at,
            review_note: r.review_note,
            reviewed_by_email: r.reviewed_by_email,
            updated_at: r.request_updated_at!,
          }),
  };
}

/** A pending request in the admins' review queue. */
export interface ReviewQueueItemView {
  request: OwnRequestView;
  applicant: PersonView;
  /** The admin who filed it on the applicant's behalf, when one did. */
  filedByEmail: string | null;
  /** Seconds since it was filed. */
  ageSeconds: number;
}

export function reviewQueueItemView(r: PendingRequestRow, now: Date): ReviewQueueItemView {
  const request = ownRequestView({ ...r, reviewed_at: null, review_note: null, reviewed_by_email: null });
  const requestedAt = request.requestedAt;
  return {
    request,
    applicant: { userId: r.user_id, email: r.email, name: r.name },
    filedByEmail: r.created_by_email === r.email ? null : r.created_by_email,
    ageSeconds: Math.max(0, Math.floor((now.getTime() - Date.parse(requestedAt)) / 1000)),
  };
}
