// The conditional trigram-index block the search migrations share: create pg_trgm when it is
// available (a notice, not a failure, when it cannot be created, e.g. PGlite without the
// extension bundle), then run `body` only when pg_trgm exists. Without it the indexes are skipped
// and substring search answers the same, by scanning.

/**
 * One idempotent trigram GIN index statement, for use inside `trigramBlockSql`. Without GIN's
 * pending list (fastupdate off): searches never scan unmerged entries (see
 * Migration20261124100000TrigramFastupdate, which set it on indexes made before).
 */
export const trigramIndex = (table: string, column: string): string =>
  `execute 'create index if not exists "${table}_${column}_trgm_index" on "${table}" using gin (lower("${column}") gin_trgm_ops) with (fastupdate = off)';`;

/** `purpose` names what runs without the indexes in the notice; `body` is PL/pgSQL statements. */
export function trigramBlockSql(purpose: string, body: string): string {
  return `do $$
begin
  if not exists (select 1 from pg_extension where extname = 'pg_trgm') and exists (select 1 from pg_available_extensions where name = 'pg_trgm') then
    begin
      create extension if not exists pg_trgm;
    exception when others then
      raise notice 'pg_trgm could not be created (%): ${purpose} runs without trigram indexes', sqlerrm;
    end;
  end if;
  if exists (select 1 from pg_extension where extname = 'pg_trgm') then
    ${body}
  end if;
end $$`;
}
