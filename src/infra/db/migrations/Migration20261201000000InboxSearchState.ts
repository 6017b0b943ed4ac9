import { Migration } from '@mikro-orm/migrations';

// The inbox search index keyed by the row's state too (src/domain/inbox/search-doc.rules.ts
// SEARCH_INDEX_EXPR): the search document plus one lexeme `<owner key>!v:<state>`. A search of the
// Inbox view ANDs `<key>!v:inbox`, so the index hands the heap only rows of that view (the
// document alone also matched the done and snoozed rows, most of a large inbox, each read from
// the heap to be dropped). The expression is written out here as it was on this day (a
// migration never follows later code). Online and backward compatible:
//  - Built CONCURRENTLY (writes go on; outside a transaction). A build that failed part way
//    leaves an invalid index, dropped and built again on the next start.
//  - The index it replaces served only the search, which no earlier release has: dropped
//    concurrently too, after the new one is valid.
//  - A state change already rewrote every index entry of the row (the state is in the list
//    index: no HOT update), so the lexeme adds no work to triage, and one entry to a publish.
const EXPR = `(search_doc || array_to_tsvector(array[right(replace(user_id::text, '-', ''), 6) || '!v:' || state]))`;
const NAME = 'notifications_search_index';

export class Migration20261201000000InboxSearchState extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    const found = await this.execute(
      `select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = '${NAME}' and c.relnamespace = current_schema()::regnamespace`,
    );
    if (found.length > 0 && found[0]?.valid !== true) await this.execute(`drop index concurrently if exists "notifications_search_index"`);
    await this.execute(
      `create index concurrently if not exists "${NAME}" on "notifications" using gin (${EXPR}) with (fastupdate = on, gin_pending_list_limit = 256)`,
    );
    await this.execute(`drop index concurrently if exists "notifications_search_doc_index"`);
  }
}
