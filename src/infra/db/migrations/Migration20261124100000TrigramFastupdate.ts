import { Migration } from '@mikro-orm/migrations';

// Trigram GIN indexes (docs, tasks, comments, meetings, feedback search) without the pending list.
// With GIN's default fastupdate, new entries wait in an unsorted pending list until a VACUUM (or
// auto-analyze) merges it, and every search scans that list on top of the index: bench:work after
// a bulk load measured 2-3 ms of PostgreSQL CPU per search_docs call for it (rare token 5.2 ->
// 2.2 ms, common word 5.9 -> 3.5 ms once merged). The searched columns are written by people
// (documents, tasks, comments), read by every search: entries now go into the index at write time
// (PostgreSQL docs, "GIN Tips": turn fastupdate off when consistent response time matters more than
// update speed). Every trigram index in the schema, whichever migrations created it (they are
// skipped without pg_trgm), gets the setting, and its existing pending list is merged now.
const STATEMENTS = [
  `do $$
declare
  idx regclass;
begin
  for idx in
    select i.indexrelid::regclass
      from pg_index i join pg_class c on c.oid = i.indexrelid
     where c.relnamespace = current_schema()::regnamespace
       and exists (select 1 from pg_opclass oc where oc.oid = any (i.indclass::oid[]) and oc.opcname = 'gin_trgm_ops')
  loop
    execute format('alter index %s set (fastupdate = off)', idx);
    perform gin_clean_pending_list(idx);
  end loop;
end $$`,
];

export class Migration20261124100000TrigramFastupdate extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
