// Every limit of the catalog (SPEC "Catalog item", "Catalog approval"), named once: the zod
// schemas, the entities, the REST and tool texts, the served protocol texts
// ({{limit.catalog.<name>}}) and the web forms read them here (SPEC Limits "Catalog list `limit`").
// No imports: the web app imports this file too.

/** Lengths in characters, counts in rows. */
export const CATALOG_LIMITS = {
  /** A catalog row's slug (also every lookup by slug: old rows may predate CATALOG_SLUG). */
  slugMax: 80,
  nameMax: 200,
  categoryMax: 120,
  urlMax: 2000,
  /** The note of a request (apply, an admin's assign, a request filed on someone's behalf). */
  noteMax: 500,
  /** The reviewer's note on an approve or reject. */
  reviewNoteMax: 500,
  /** `limit` of GET /api/v1/catalog/items and catalog_item_list. */
  listMax: 200,
  listDefault: 50,
  /** `limit` of list_pending_team_support_requests (the review queue). */
  pendingListMax: 200,
  pendingListDefault: 50,
  /** GET /api/v1/catalog/approvals and list_approvals_for_user: the most rows one answer holds. */
  approvalsListMax: 500,
  /** CatalogPortalService.ListCatalog: the most live rows one answer holds (display order). */
  portalRowsMax: 1000,
  /** `limit` of CatalogPortalService.ListMyRequests (a person's own requests, newest first). */
  ownRequestsListMax: 200,
  ownRequestsListDefault: 50,
  /** An admin hears of new requests for one row at most once in this many minutes (a burst is one notice). */
  reviewAlertWindowMinutes: 60,
} as const;

/** A new catalog row's slug: lowercase letters, digits, `.`, `_` and `-`, at most CATALOG_LIMITS.slugMax. */
export const CATALOG_SLUG = new RegExp(`^[a-z0-9][a-z0-9._-]{0,${CATALOG_LIMITS.slugMax - 1}}$`);

/** Widths of the varchar columns that hold a vocabulary word (ASSET_TYPES, request and asset statuses). */
export const CATALOG_COLUMNS = { type: 30, requestStatus: 20, assetStatus: 20 } as const;
