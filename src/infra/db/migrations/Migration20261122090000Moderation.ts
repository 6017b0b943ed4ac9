import { Migration } from '@mikro-orm/migrations';

// Moderation tokens, hold-for-forwarding queue and the per-token circuit breaker.
//  - moderation_queue: one entry per delivery of a moderation token (SPEC "Side effects of a new
//    delivery": a queue entry instead of an inbox row). title/summary/body start as the event's
//    text; a repeat arrival refreshes them while the entry is pending and unedited; the admin may
//    edit them. Forwarding writes a notification for the target (no delivery row for the target)
//    and records it here. status: pending | forwarded | dismissed.
//  - inbound_tokens.breaker_open_until: the circuit breaker is open (429 circuit_open) until then.
//    breaker_since: failures are counted from here (the end of the last suspension or the last
//    admin reset), so an old burst cannot trip the breaker again at once.
const STATEMENTS = [
  `alter table "inbound_tokens" add column "breaker_open_until" timestamptz null, add column "breaker_since" timestamptz null`,

  `create table "moderation_queue" ("id" uuid not null, "delivery_id" uuid not null references "deliveries" ("id"), "token_id" uuid not null references "inbound_tokens" ("id"), "admin_user_id" uuid not null references "users" ("id"), "status" varchar(12) not null default 'pending', "title" varchar(200) not null, "summary" varchar(500) null, "body" text null, "edited_at" timestamptz null, "forwarded_to_user_id" uuid null references "users" ("id"), "forwarded_at" timestamptz null, "notification_id" uuid null, "dismissed_at" timestamptz null, "dismiss_reason" varchar(500) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"), constraint "moderation_queue_status_check" check ("status" in ('pending', 'forwarded', 'dismissed')))`,
  `alter table "moderation_queue" add constraint "moderation_queue_delivery_id_unique" unique ("delivery_id")`,
  `create index "moderation_queue_admin_user_id_status_created_at_index" on "moderation_queue" ("admin_user_id", "status", "created_at")`,
];

export class Migration20261122090000Moderation extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
