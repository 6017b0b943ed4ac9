import { Migration } from '@mikro-orm/migrations';
import { partitionInPlace } from '../partition-in-place.js';

// `notifications` (the inbox rows) and `delivery_supplements` become partitioned by month on
// created_at, in place, without copying a row (src/infra/db/partition-in-place.ts; docs/scaling.md
// section 4.4). A POST-DEPLOY migration (index.ts POST_DEPLOY_MIGRATIONS): it runs once every node
// runs this release.
//  - notifications: primary key (id) → (id, created_at), unique (delivery_id) → (delivery_id,
//    created_at). An inbox row of a delivery has the delivery's created_at, so a delivery still has
//    one inbox row; nothing of this release relies on the old keys alone (no `on conflict` names
//    them). The inbox counters' statement triggers move to the partitioned table, where they see
//    the rows of every partition a statement touches. `notifications_user_id_created_at_id_index`,
//    kept only for 0.25.935's inbox page (Migration20261128200000InboxTriage; this release reads
//    the inbox through notifications_user_state_listed_index), is dropped instead of carried over:
//    the rollout is over when this runs, and every inbox row written saves its index entry.
//  - delivery_supplements: primary key (id) → (id, created_at); its `seq` identity goes on from the
//    old sequence. A supplement's month is its own (not its delivery's): it is never older than
//    its delivery, so a month of supplements expires no earlier than their deliveries.
export class Migration20261203000000InboxPartitioned extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    const em = this.getEntityManager();
    const now = new Date();
    await partitionInPlace(em, 'notifications', now, { dropIndexes: ['notifications_user_id_created_at_id_index'] });
    await partitionInPlace(em, 'delivery_supplements', now);
  }
}
