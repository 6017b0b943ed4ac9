// fluxdesk.catalog.v1.CatalogPortalService: the catalog a person uses (browse, apply, withdraw,
// their requests) and the admins' review queue. Map -> call -> map, like moderation-routes.ts.
import type { ConnectRouter } from '@connectrpc/connect';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { CatalogPortalService, type CatalogAccessRequestSchema, type CatalogEntrySchema } from '../../../gen/fluxdesk/catalog/v1/catalog_portal_pb.js';
import type { AppDeps } from '../../app/deps.js';
import type { CatalogEntryView, OwnRequestView } from '../../domain/catalog/catalog-portal.schemas.js';
import { listCatalogWithOwnStatus } from '../../domain/catalog/list-catalog-with-own-status.js';
import { fileOwnCatalogRequest } from '../../domain/catalog/file-own-catalog-request.js';
import { withdrawOwnCatalogRequest } from '../../domain/catalog/withdraw-own-catalog-request.js';
import { listOwnCatalogRequests } from '../../domain/catalog/list-own-catalog-requests.js';
import { listCatalogReviewQueue } from '../../domain/catalog/list-catalog-review-queue.js';
import { reviewCatalogRequest } from '../../domain/catalog/review-catalog-request.js';
import { defined } from './mappers.js';
import { call } from './call.js';

const ts = (iso: string) => timestampFromDate(new Date(iso));
const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

function requestToProto(r: OwnRequestView): MessageInitShape<typeof CatalogAccessRequestSchema> {
  return {
    id: r.id,
    catalogItemId: r.catalogItemId,
    catalogSlug: r.catalogSlug ?? '',
    catalogName: r.catalogName,
    status: r.status,
    note: opt(r.note),
    requestedAt: ts(r.requestedAt),
    reviewedAt: r.reviewedAt === null ? undefined : ts(r.reviewedAt),
    reviewNote: opt(r.reviewNote),
    reviewedByEmail: opt(r.reviewedByEmail),
    updatedAt: ts(r.updatedAt),
  };
}

function entryToProto(e: CatalogEntryView): MessageInitShape<typeof CatalogEntrySchema> {
  return {
    id: e.id,
    slug: e.slug ?? '',
    name: e.name,
    type: e.type,
    description: opt(e.description),
    applicationGuide: opt(e.applicationGuide),
    url: opt(e.url),
    contact: opt(e.contact),
    approvalRequired: e.approvalRequired,
    isPinned: e.isPinned,
    myStatus: e.myStatus,
    myRequest: e.myRequest === null ? undefined : requestToProto(e.myRequest),
  };
}

/** Registers the service; returns its type name (grpc.health.v1 reports it SERVING). */
export function registerCatalogPortalRoutes(router: ConnectRouter, deps: AppDeps): string[] {
  router.service(CatalogPortalService, {
    async listCatalog(_req, ctx) {
      const out = await call(deps, listCatalogWithOwnStatus, {}, ctx);
      return { categories: out.groups.map((g) => ({ category: g.category, display: g.display, entries: g.entries.map(entryToProto) })) };
    },
    async apply(req, ctx) {
      const out = await call(deps, fileOwnCatalogRequest, defined({ catalog_id: req.catalogId, catalog_slug: req.catalogSlug, note: req.note }), ctx);
      return { request: requestToProto(out.request), created: out.created };
    },
    async withdraw(req, ctx) {
      const out = await call(deps, withdrawOwnCatalogRequest, { request_id: req.requestId }, ctx);
      return { request: requestToProto(out.request), withdrawn: out.withdrawn };
    },
    async listMyRequests(req, ctx) {
      return { items: (await call(deps, listOwnCatalogRequests, defined({ limit: req.limit }), ctx)).items.map(requestToProto) };
    },
    async listPendingRequests(req, ctx) {
      const out = await call(deps, listCatalogReviewQueue, defined({ limit: req.limit }), ctx);
      return {
        items: out.items.map((i) => ({
          request: requestToProto(i.request),
          applicant: i.applicant,
          filedByEmail: opt(i.filedByEmail),
          ageSeconds: BigInt(i.ageSeconds),
        })),
      };
    },
    async review(req, ctx) {
      const out = await call(deps, reviewCatalogRequest, defined({ request_id: req.requestId, decision: req.decision, note: req.note }), ctx);
      return { request: requestToProto(out.request), applicantEmail: out.applicantEmail };
    },
  });
  return [CatalogPortalService.typeName];
}
