import { Migration } from '@mikro-orm/migrations';

// Catalog rows, employee requests (approvals), access assets, and the link from claimed personal
// tokens to the tools-token and approval they were minted under.
const STATEMENTS = [
  `create table "catalog_items" ("id" uuid not null, "slug" varchar(80) null, "name" varchar(200) not null, "type" varchar(30) not null, "description" text null, "category" varchar(120) null, "url" varchar(2000) null, "application_guide" text null, "use_cases" jsonb not null, "is_pinned" boolean not null, "approval_required" boolean not null, "display_order" int not null, "contact_user_id" uuid null references "users" ("id"), "linked_tools_token_id" uuid null references "inbound_tokens" ("id"), "integrator_id" uuid null references "integrators" ("id"), "archived_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"))`,
  `alter table "catalog_items" add constraint "catalog_items_slug_unique" unique ("slug")`,
  `create index "catalog_items_order_index" on "catalog_items" ("display_order", "name")`,
  `create index "catalog_items_linked_tools_token_id_index" on "catalog_items" ("linked_tools_token_id")`,

  `create table "catalog_requests" ("id" uuid not null, "user_id" uuid not null references "users" ("id"), "catalog_item_id" uuid not null references "catalog_items" ("id"), "status" varchar(20) not null, "note" varchar(500) null, "requested_at" timestamptz not null, "reviewed_at" timestamptz null, "reviewed_by_user_id" uuid null references "users" ("id"), "review_note" varchar(500) null, "created_by_user_id" uuid null references "users" ("id"), "updated_at" timestamptz not null, primary key ("id"))`,
  `create unique index "catalog_requests_one_live" on "catalog_requests" ("user_id", "catalog_item_id") where "status" in ('pending', 'approved', 'in_execution', 'completed')`,
  `create index "catalog_requests_item_status_index" on "catalog_requests" ("catalog_item_id", "status")`,

  `create table "access_assets" ("id" uuid not null, "user_id" uuid not null references "users" ("id"), "catalog_item_id" uuid not null references "catalog_items" ("id"), "request_id" uuid not null references "catalog_requests" ("id"), "status" varchar(20) not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"))`,
  `create index "access_assets_item_status_index" on "access_assets" ("catalog_item_id", "status")`,
  `create index "access_assets_request_id_index" on "access_assets" ("request_id")`,

  `alter table "inbound_tokens" add column "claimed_by_tools_token_id" uuid null references "inbound_tokens" ("id"), add column "approval_id" uuid null references "catalog_requests" ("id")`,
  `create unique index "inbound_tokens_one_claimed" on "inbound_tokens" ("owner_user_id", "integrator_id") where "claimed_by_tools_token_id" is not null and "status" = 'active'`,
  `create index "inbound_tokens_approval_id_index" on "inbound_tokens" ("approval_id")`,

  // Supplements within one millisecond keep their insertion order.
  `alter table "delivery_supplements" add column "seq" bigint generated always as identity`,
];

export class Migration20261122010000Catalog extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
