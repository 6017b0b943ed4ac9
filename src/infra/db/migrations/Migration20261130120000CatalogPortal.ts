import { Migration } from '@mikro-orm/migrations';

// The catalog a person uses (CatalogPortalService, docs/contract.md "Catalog for people"). Backward
// compatible with the previous release: only additions.
//  - catalog_review_alerts: when each admin was last told of a new request for a catalog row, so a
//    burst of requests tells them once per window (one upsert claims the slot, also under
//    concurrent requests). The previous release neither reads nor writes it. No foreign keys, so
//    the previous release's hard delete of a catalog row is not refused: it leaves at most one
//    stale row per admin, which no query joins (this release's hard delete removes them).
//  - An index for a person's own requests (their list, and their status on each catalog row). The
//    table is small (one row per request); a plain create takes a short write lock.
const STATEMENTS = [
  `create table "catalog_review_alerts" ("admin_user_id" uuid not null, "catalog_item_id" uuid not null, "notified_at" timestamptz not null,
     primary key ("admin_user_id", "catalog_item_id"))`,
  `create index "catalog_requests_user_item_index" on "catalog_requests" ("user_id", "catalog_item_id", "requested_at")`,
];

export class Migration20261130120000CatalogPortal extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
