import { Migration } from '@mikro-orm/migrations';

// Documents for the agent doc tools (SPEC C list_docs ... search_by_tags, "Document states").
//  - doc_spaces: one default space per project (slug `<project-slug>`, created on first use),
//    slugs unique across projects because (space_slug, page_slug) addresses a page on its own.
//  - doc_pages: status draft | published | archived; project_id is copied from the space so the
//    visibility predicate and list_docs filter on one table; (space_id, parent_page_id) must name
//    a page of the same space (composite foreign key). An archived page remembers the status it
//    had and the page whose archiving took it (restore_doc undoes exactly one archive_doc).
//  - doc_page_revisions: update_doc keeps the replaced version (revision n = the page at n).
//  - doc_page_tags: one row per (page, tag); tags are stored normalised (lowercase).
const STATEMENTS = [
  `create table "doc_spaces" ("id" uuid not null, "project_id" uuid not null references "projects" ("id"), "slug" varchar(100) not null, "name" varchar(200) not null, "is_default" boolean not null default false, "created_by_user_id" uuid null references "users" ("id"), "created_at" timestamptz not null, primary key ("id"))`,
  `alter table "doc_spaces" add constraint "doc_spaces_slug_unique" unique ("slug")`,
  `create unique index "doc_spaces_project_id_default_unique" on "doc_spaces" ("project_id") where "is_default"`,
  `create index "doc_spaces_project_id_index" on "doc_spaces" ("project_id")`,

  `create table "doc_pages" ("id" uuid not null, "space_id" uuid not null references "doc_spaces" ("id"), "project_id" uuid not null references "projects" ("id"), "parent_page_id" uuid null, "slug" varchar(120) not null, "title" varchar(300) not null, "body" text not null, "kind" varchar(20) not null, "status" varchar(12) not null, "pinned" boolean not null default false, "change_summary" varchar(500) null, "author_user_id" uuid not null references "users" ("id"), "revision" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, "published_at" timestamptz null, "archived_at" timestamptz null, "archived_from_status" varchar(12) null, "archive_root_id" uuid null, primary key ("id"), constraint "doc_pages_status_check" check ("status" in ('draft', 'published', 'archived')), constraint "doc_pages_archived_check" check (("status" = 'archived') = ("archived_from_status" is not null)))`,
  // Unique per space; also the index behind (space_slug, page_slug) lookups.
  `alter table "doc_pages" add constraint "doc_pages_space_id_slug_unique" unique ("space_id", "slug")`,
  `alter table "doc_pages" add constraint "doc_pages_space_id_id_unique" unique ("space_id", "id")`,
  `alter table "doc_pages" add constraint "doc_pages_parent_same_space_fk" foreign key ("space_id", "parent_page_id") references "doc_pages" ("space_id", "id")`,
  `create index "doc_pages_space_id_status_index" on "doc_pages" ("space_id", "status")`,
  `create index "doc_pages_project_id_status_updated_at_index" on "doc_pages" ("project_id", "status", "updated_at")`,
  `create index "doc_pages_parent_page_id_index" on "doc_pages" ("parent_page_id") where "parent_page_id" is not null`,
  `create index "doc_pages_author_user_id_status_index" on "doc_pages" ("author_user_id", "status")`,
  `create index "doc_pages_archive_root_id_index" on "doc_pages" ("archive_root_id") where "archive_root_id" is not null`,

  `create table "doc_page_revisions" ("id" uuid not null, "page_id" uuid not null references "doc_pages" ("id") on delete cascade, "revision" int not null, "title" varchar(300) not null, "body" text not null, "kind" varchar(20) not null, "change_summary" varchar(500) null, "edited_by_user_id" uuid not null references "users" ("id"), "created_at" timestamptz not null, primary key ("id"))`,
  `alter table "doc_page_revisions" add constraint "doc_page_revisions_page_id_revision_unique" unique ("page_id", "revision")`,

  `create table "doc_page_tags" ("page_id" uuid not null references "doc_pages" ("id") on delete cascade, "tag" varchar(50) not null, "created_at" timestamptz not null, primary key ("page_id", "tag"))`,
  `create index "doc_page_tags_tag_index" on "doc_page_tags" ("tag")`,

  // Substring search (search_docs: lower(col) LIKE lower('%q%')) is served by trigram GIN indexes.
  // pg_trgm ships with PostgreSQL contrib; embedded PGlite has it only when the instance is created
  // with the extension bundle (`extensions: { pg_trgm }` from @electric-sql/pglite/contrib/pg_trgm),
  // which the ORM bootstrap does not do today. Without it the indexes are skipped and search scans
  // the (small, embedded) table sequentially: same results, no index. A failure to create the
  // extension (no privilege) is a notice, not a failed migration, with the same fallback.
  // The block is idempotent: a later migration may run it again once the extension is loaded.
  docSearchIndexesSql(),
];

/** Creates pg_trgm when available and the two trigram indexes when pg_trgm exists; else nothing. */
export function docSearchIndexesSql(): string {
  return `do $$
begin
  if not exists (select 1 from pg_extension where extname = 'pg_trgm') and exists (select 1 from pg_available_extensions where name = 'pg_trgm') then
    begin
      create extension if not exists pg_trgm;
    exception when others then
      raise notice 'pg_trgm could not be created (%): docs search runs without trigram indexes', sqlerrm;
    end;
  end if;
  if exists (select 1 from pg_extension where extname = 'pg_trgm') then
    execute 'create index if not exists "doc_pages_title_trgm_index" on "doc_pages" using gin (lower("title") gin_trgm_ops)';
    execute 'create index if not exists "doc_pages_body_trgm_index" on "doc_pages" using gin (lower("body") gin_trgm_ops)';
  end if;
end $$`;
}

export class Migration20261122060000Docs extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
