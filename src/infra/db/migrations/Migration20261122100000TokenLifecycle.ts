import { Migration } from '@mikro-orm/migrations';

// Inactivity expiry scan and warning mails (SPEC "Personal token lifecycle": `active` -> `auto_expired`
// after 12 months without use, a daily scan, owner warned by mail 30 days ahead; Limits: personal
// and agent tokens).
const STATEMENTS: string[] = [
  // The daily scan reads "last use" = coalesce(last_used_at, created_at) of live tokens only.
  `create index "inbound_tokens_active_last_use_index" on "inbound_tokens" ((coalesce("last_used_at", "created_at"))) where "status" = 'active'`,
  `create index "agent_tokens_live_last_use_index" on "agent_tokens" ((coalesce("last_used_at", "created_at"))) where "revoked_at" is null`,
  // Every mail the service sends is recorded here first (transactional outbox): `queued` -> `sent`,
  // `failed` (attempts used up) or `skipped` (no SMTP_URL configured); `sending` marks a claimed row
  // (reclaimed when its sender died). `dedupe_key` makes enqueueing idempotent, e.g. one inactivity
  // warning per token per expiry cycle. Bodies are the service's own notices: never token values.
  `create table "mail_outbox" ("id" uuid not null, "kind" varchar(40) not null, "dedupe_key" varchar(200) not null, "user_id" uuid null references "users" ("id"), "to_address" varchar(320) not null, "subject" varchar(300) not null, "body_text" text not null, "status" varchar(10) not null, "attempts" int not null default 0, "last_error" varchar(500) null, "token_id" uuid null, "created_at" timestamptz not null, "next_attempt_at" timestamptz not null, "updated_at" timestamptz not null, "sent_at" timestamptz null, primary key ("id"), constraint "mail_outbox_status_check" check ("status" in ('queued', 'sending', 'sent', 'failed', 'skipped')))`,
  `alter table "mail_outbox" add constraint "mail_outbox_dedupe_key_unique" unique ("dedupe_key")`,
  `create index "mail_outbox_pending_index" on "mail_outbox" ("next_attempt_at") where "status" in ('queued', 'sending')`,
  `create index "mail_outbox_user_id_index" on "mail_outbox" ("user_id")`,
];

export class Migration20261122100000TokenLifecycle extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
