import { Migration } from '@mikro-orm/migrations';

// Inbox search (src/domain/inbox/search-doc.rules.ts): each notification's search document, a
// tsvector of lexemes made by the service (words of its title, summary, label values and actor
// name behind a key of its owner, its severity and event type), behind one GIN index; a search is
// `user_id = ? and search_doc @@ ?::tsquery`. Backward compatible with the previous release:
//  - The column is nullable and has no default: nothing is rewritten, and the previous release
//    keeps inserting rows without it. Those rows (and every row written before this migration)
//    are indexed by the maintenance task `inbox.search-backfill`, found through the partial index
//    of rows without a document (empty once the backlog is done: writes with a document never
//    touch it).
//  - GIN with a small pending list: an insert appends to it (cheap), a search reads it whole, so
//    it is kept at 256 kB (merged by the inserting backend or autovacuum when full).
const STATEMENTS = [
  `alter table "notifications" add column "search_doc" tsvector null`,
  `create index "notifications_search_doc_index" on "notifications" using gin ("search_doc") with (fastupdate = on, gin_pending_list_limit = 256)`,
  `create index "notifications_search_backlog_index" on "notifications" ("id") where "search_doc" is null`,
];

export class Migration20261129100000InboxSearch extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
