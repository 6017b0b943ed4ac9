import { defineEntity, p } from '@mikro-orm/core';
import { CATALOG_COLUMNS, CATALOG_LIMITS } from './catalog.limits.js';

/** A catalog row (SPEC "Catalog item"). `slug` is immutable; old rows may have none. */
export const CatalogItemSchema = defineEntity({
  name: 'CatalogItem',
  tableName: 'catalog_items',
  properties: {
    id: p.uuid().primary(),
    slug: p.string().length(CATALOG_LIMITS.slugMax).nullable().unique(),
    name: p.string().length(CATALOG_LIMITS.nameMax),
    type: p.string().length(CATALOG_COLUMNS.type),
    description: p.text().nullable(),
    category: p.string().length(CATALOG_LIMITS.categoryMax).nullable(),
    url: p.string().length(CATALOG_LIMITS.urlMax).nullable(),
    applicationGuide: p.text().nullable(),
    useCases: p.json<unknown[]>(),
    isPinned: p.boolean(),
    approvalRequired: p.boolean(),
    displayOrder: p.integer(),
    contactUserId: p.uuid().nullable(),
    linkedToolsTokenId: p.uuid().nullable(),
    integratorId: p.uuid().nullable(),
    archivedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class CatalogItem extends CatalogItemSchema.class {}
CatalogItemSchema.setClass(CatalogItem);

/**
 * An employee's request for a catalog row. Live statuses: pending, approved, in_execution,
 * completed; terminal: rejected, withdrawn, cancelled, revoked. At most one live row per
 * (user, item) — a partial unique index makes concurrent assigns create one approval.
 */
export const CatalogRequestSchema = defineEntity({
  name: 'CatalogRequest',
  tableName: 'catalog_requests',
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    catalogItemId: p.uuid(),
    status: p.string().length(CATALOG_COLUMNS.requestStatus),
    note: p.string().length(CATALOG_LIMITS.noteMax).nullable(),
    requestedAt: p.datetime(),
    reviewedAt: p.datetime().nullable(),
    reviewedByUserId: p.uuid().nullable(),
    reviewNote: p.string().length(CATALOG_LIMITS.reviewNoteMax).nullable(),
    createdByUserId: p.uuid().nullable(),
    updatedAt: p.datetime(),
  },
});
export class CatalogRequest extends CatalogRequestSchema.class {}
CatalogRequestSchema.setClass(CatalogRequest);

/** Access granted by an approved request; revoked with it. */
export const AccessAssetSchema = defineEntity({
  name: 'AccessAsset',
  tableName: 'access_assets',
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    catalogItemId: p.uuid(),
    requestId: p.uuid(),
    status: p.string().length(CATALOG_COLUMNS.assetStatus),
    createdAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
  },
});
export class AccessAsset extends AccessAssetSchema.class {}
AccessAssetSchema.setClass(AccessAsset);
