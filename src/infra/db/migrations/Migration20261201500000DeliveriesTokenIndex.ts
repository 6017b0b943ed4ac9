import { Migration } from '@mikro-orm/migrations';

// `GET /api/v1/event-types` for a personal token (eventTypesOfOwner in
// src/domain/events/deliveries.repository.ts) reads its owner's deliveries of the last 90 days. It
// went through the (token_id, event_id) unique index, which cannot bound created_at: every delivery
// the owner ever had was fetched from the heap and filtered (bench:scale, 7.5 M deliveries, a user
// with 37,555: 470-870 ms). On (token_id, created_at) including event_type it is an index-only range
// of the window (5.4 ms on the same database). It is also the token index of every monthly
// partition once deliveries is partitioned (Migration20261202000000DeliveriesPartitioned attaches
// this one to the legacy partition), where the unique index is not.
// Online: built CONCURRENTLY (writes go on; outside a transaction); a build that failed part way
// leaves an invalid index, dropped and built again on the next start. The previous release never
// names it. Costs each new delivery one more index entry.
const NAME = 'deliveries_token_id_created_at_index';

export class Migration20261201500000DeliveriesTokenIndex extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    // Already partitioned (a database a newer tree migrated): the partitioned table has it.
    const partitioned = await this.execute(`select 1 from pg_partitioned_table where partrelid = to_regclass('"deliveries"')`);
    if (partitioned.length > 0) return;
    const found = await this.execute(
      `select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = '${NAME}' and c.relnamespace = current_schema()::regnamespace`,
    );
    if (found.length > 0 && found[0]?.valid !== true) await this.execute(`drop index concurrently if exists "${NAME}"`);
    await this.execute(`create index concurrently if not exists "${NAME}" on "deliveries" ("token_id", "created_at") include ("event_type")`);
  }
}
