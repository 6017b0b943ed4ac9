import { Migration } from '@mikro-orm/migrations';

// Nudge outbox rows the previous release must not claim (docs/migrations.md "Nudge outbox: parked
// rows"): reason `snooze` (a snoozed row came back) and `summary` (a quiet hours summary, whose
// delivery_id is not a delivery). The previous release's claim selects `lease_until is null or
// lease_until < now()` and reads no `reason`: it would send a snooze as an arrival and settle a
// summary unsent. So such a row is "parked": its `lease_until` stays 'infinity' from insert to
// delete (that claim never selects it), and this release leases it through `parked_lease_until`
// (NULL = unclaimed; otherwise the lease's end, as `lease_until` is for an `event` row). Backward
// compatible with the previous release:
//  - One nullable column: adding it rewrites nothing, whatever the table's size. The previous
//    release inserts `event` rows only, without it (NULL, never read for an event row).
//  - The update converts the parked rows already queued (few: the outbox is a queue, emptied within
//    seconds; there is no index on `reason`, so it scans the table once, under the lock_timeout). A
//    row leased at that moment keeps its lease in the new column; the node that leased it cannot
//    delete it by its old row version, so this release sends it again once that lease ends (the
//    receivers dedupe on the nudge id, as after a crash).
//  - Retries of parked rows go to their own pg-boss queue (`nudges-parked`), which the previous
//    release does not work: its `nudges` worker would misread them the same way.
const STATEMENTS = [
  `set local lock_timeout = '5s'`,
  `alter table "nudge_outbox" add column "parked_lease_until" timestamptz null`,
  `update "nudge_outbox" set "parked_lease_until" = "lease_until", "lease_until" = 'infinity' where "reason" <> 'event' and "lease_until" is distinct from 'infinity'`,
];

export class Migration20261201200000OutboxParked extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
