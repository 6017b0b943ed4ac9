import { Migration } from '@mikro-orm/migrations';

// The first attempt of a nudge is sent straight from the outbox (src/infra/queue/nudge-queue.ts):
// a claim stamps `lease_until` and counts the attempt; the row is deleted once settled. Neither
// column is indexed, so a claim is a HOT update (no index write). Existing rows are unclaimed.
const STATEMENTS = [
  `alter table "nudge_outbox" add column "lease_until" timestamptz null, add column "attempts" int not null default 0`,
  // Claims and settles rewrite rows in place: leave room in each page for HOT updates.
  `alter table "nudge_outbox" set (fillfactor = 80)`,
];

export class Migration20261122130000NudgeLease extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
