import { Migration } from '@mikro-orm/migrations';

// The keys of the deliveries that existed before Migration20261201400000DeliveryKeys committed its
// trigger (every delivery inserted or updated since has its key from the trigger). This release's
// publish path reads the keys as the whole truth, so they are complete before it serves: this runs
// in the migration, while the previous release's nodes go on serving.
//
// Online: outside a transaction, in batches of BATCH_BLOCKS heap blocks (about 10,000 rows) by TID
// range scan (sequential, no index), each batch its own short transaction, `on conflict do
// nothing` (a key the trigger wrote first stays). The heap's size is read after the trigger
// committed: rows placed later, in any block, were keyed by the trigger. Interrupted, it runs
// again from the first block on the next start (a batch of keyed rows costs index probes only).
// Measured on 5 M deliveries in docs/scaling.md section 4.2.
const BATCH_BLOCKS = 500;

export class Migration20261201400100DeliveryKeysBackfill extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    const [size] = (await this.execute(`select (pg_relation_size('"deliveries"') / current_setting('block_size')::bigint)::int as blocks`)) as {
      blocks: number;
    }[];
    const blocks = size?.blocks ?? 0;
    for (let from = 0; from < blocks; from += BATCH_BLOCKS) {
      await this.execute(
        `insert into "delivery_keys" ("token_id", "event_id", "delivery_id", "created_at")
         select "token_id", "event_id", "id", "created_at" from "deliveries"
         where ctid >= format('(%s,0)', ?::int)::tid and ctid < format('(%s,0)', ?::int)::tid
         on conflict do nothing`,
        [from, from + BATCH_BLOCKS],
      );
    }
  }
}
