import { Migration } from '@mikro-orm/migrations';

// The dedup key table (docs/scaling.md section 4), the expand step before `deliveries` is
// partitioned by month: a unique index on a partitioned table must contain the partition key, so
// (token_id, event_id) cannot stay unique on `deliveries` itself. From this release on the
// publish path decides first arrival or repeat here (src/domain/events/events.repository.ts) and
// never names `deliveries`' own unique constraint, which the next release can then leave behind
// on the legacy partition.
//
// `delivery_keys (token_id, event_id) → (delivery_id, created_at)`: the delivery's full primary
// key once partitioned, so a repeat updates one partition. Not hash-partitioned (the first plan):
// each publish statement would open and lock all of its partitions and their indexes, for
// smaller btrees that nothing here needs yet.
//
// The previous release (0.25.935) still inserts and updates deliveries during a rolling upgrade
// and knows nothing of this table: a row trigger writes the key of every delivery it inserts or
// updates (an update may move a row's tuple to a block the backfill has passed). This release's
// connections set `fluxdesk.writes_delivery_keys = on` (src/infra/db/orm.ts), which the trigger's
// WHEN skips: they write the key themselves, before the delivery. The trigger and its function
// are contracted in the next release (docs/migrations.md). Existing rows get their keys in the
// next migration (Migration20261201400100DeliveryKeysBackfill), after this one committed the
// trigger: from then on no row can be missed.
export class Migration20261201400000DeliveryKeys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`set local lock_timeout = '5s'`);
    this.addSql(
      `create table "delivery_keys" ("token_id" uuid not null, "event_id" varchar(120) not null, "delivery_id" uuid not null, "created_at" timestamptz not null, constraint "delivery_keys_pkey" primary key ("token_id", "event_id"))`,
    );
    this.addSql(`create function "delivery_keys_sync"() returns trigger language plpgsql as $$
      begin
        insert into "delivery_keys" ("token_id", "event_id", "delivery_id", "created_at")
        values (new."token_id", new."event_id", new."id", new."created_at") on conflict do nothing;
        return null;
      end $$`);
    // Waits for the writes in flight on deliveries and holds new ones until this commits (bounded
    // by the lock_timeout above).
    this.addSql(
      `create trigger "delivery_keys_sync" after insert or update on "deliveries" for each row when (current_setting('fluxdesk.writes_delivery_keys', true) is distinct from 'on') execute function "delivery_keys_sync"()`,
    );
  }
}
