// Shapes of the catalog approval operations (SPEC "Catalog approval"): request and response
// schemas, also the OpenAPI components, and the row -> view mapping.
import { z } from 'zod';
import { iso } from '../timestamps.js';
import type { ApprovalViewRow } from './catalog.repository.js';
import { REST_APPROVAL_STATUSES, restApprovalStatus } from './catalog.rules.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { CATALOG_LIMITS } from './catalog.limits.js';

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
  email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax),
  catalog_slug: z.string().min(1).max(CATALOG_LIMITS.slugMax),
});

export const toView = (r: ApprovalViewRow): CatalogApprovalListItem => ({
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

export const ListApprovalsInput = z.strictObject({
  email: z.email({ error: 'must be a valid email address' }).max(USER_LIMITS.emailMax).optional(),
  catalog_slug: z.string().min(1).max(CATALOG_LIMITS.slugMax).optional(),
  status: z.enum(REST_APPROVAL_STATUSES).optional(),
});

export const RevokeApprovalInput = CatalogApprovalAssignRequestSchema.extend({ notify_employee: z.boolean().default(true) });

export const CatalogApprovalReviewRequestSchema = z.strictObject({
  request_id: z.uuid({ error: 'must be a UUID' }),
  decision: z.enum(['approve', 'reject']),
  note: z.string().max(CATALOG_LIMITS.reviewNoteMax).optional(),
});

export const ApplyInput = z.strictObject({
  email: z.email().max(USER_LIMITS.emailMax),
  catalog_slug: z.string().min(1).max(CATALOG_LIMITS.slugMax),
  note: z.string().max(CATALOG_LIMITS.noteMax).optional(),
});
