import { Migration } from '@mikro-orm/migrations';

// "Group repeats" in the web app's Inbox view as a per-user preference (SetPreferences
// `group_inbox`, README "Nudges"; it was kept in each browser's localStorage before). Backward
// compatible with the previous release: one column with a constant default (nothing is rewritten,
// whatever the table's size); the previous release's preference upsert names its own columns only,
// so a row it writes takes the default (grouping on) and an update of it keeps the stored value.
const STATEMENTS = [`alter table "nudge_preferences" add column "group_inbox" boolean not null default true`];

export class Migration20261201100000InboxGrouping extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
