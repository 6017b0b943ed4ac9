import { Migration } from '@mikro-orm/migrations';

// One-click client setup: connect sessions (short-lived, single-use, stored hashed) that an AI
// client exchanges for an agent token at /api/internal-os/agent/connect-callback.
const STATEMENTS = [
  `create table "connect_sessions" ("id" uuid not null, "session_hash" varchar(64) not null, "user_id" uuid not null references "users" ("id"), "scopes" jsonb not null, "label" varchar(80) not null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"))`,
  `alter table "connect_sessions" add constraint "connect_sessions_session_hash_unique" unique ("session_hash")`,
  `create index "connect_sessions_user_id_index" on "connect_sessions" ("user_id")`,
  // Lets a cleanup job drop dead sessions by age without a scan.
  `create index "connect_sessions_expires_at_index" on "connect_sessions" ("expires_at")`,
];

export class Migration20261122030000Account extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
