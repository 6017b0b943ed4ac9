import { Migration } from '@mikro-orm/migrations';

// Nudges (browser push and chat) through a transactional outbox, and the daily limits (SPEC Limits:
// daily notifications per token, 500 inbox notifications per user per day, reset 00:00 UTC).
// The outbox and counter tables carry no foreign keys on purpose: they are written by the publish
// statement (the hot path) and an FK check per row would cost a lookup each; their rows only ever
// name deliveries, tokens and users written in the same statement.
const STATEMENTS = [
  // One row per (delivery, channel) still to hand to the job queue; the relay deletes it in the
  // same transaction that creates the job, so a row is never both here and queued. No index at
  // all: the publish statement only appends (one row per channel of a NEW delivery, so at most one
  // per (delivery, channel) by construction) and the relay takes rows by ctid. Rows live for
  // milliseconds: vacuum by dead-row count, not table size. `id` becomes the job id.
  `create table "nudge_outbox" ("id" uuid not null, "delivery_id" uuid not null, "user_id" uuid not null, "channel" varchar(8) not null, "created_at" timestamptz not null) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000)`,
  // Day = the service clock's UTC date (passed in, never the database's now()). Updated on every
  // new delivery: free space per page keeps those updates HOT (no index write).
  `create table "token_daily_counts" ("token_id" uuid not null, "day" date not null, "count" int not null, primary key ("token_id", "day")) with (fillfactor = 70)`,
  `create table "user_daily_counts" ("user_id" uuid not null, "day" date not null, "count" int not null, primary key ("user_id", "day")) with (fillfactor = 70)`,
  // Per-user nudge settings; no row = defaults (critical and warn nudge, no chat destination).
  `create table "nudge_preferences" ("user_id" uuid not null references "users" ("id"), "push_severities" text[] not null, "chat_enabled" boolean not null default true, "chat_url" varchar(2000) null, "chat_style" varchar(10) null, "updated_at" timestamptz not null, primary key ("user_id"))`,
  `create table "push_subscriptions" ("id" uuid not null, "user_id" uuid not null references "users" ("id"), "endpoint" varchar(2000) not null, "p256dh" varchar(200) not null, "auth" varchar(100) not null, "created_at" timestamptz not null, primary key ("id"))`,
  `alter table "push_subscriptions" add constraint "push_subscriptions_user_endpoint_unique" unique ("user_id", "endpoint")`,
  // Nudges that used up their attempts (the visible dead state; ListFailedNudges).
  `create table "nudge_failures" ("id" uuid not null, "delivery_id" uuid not null, "user_id" uuid not null, "channel" varchar(8) not null, "attempts" int not null, "last_error" varchar(500) not null, "failed_at" timestamptz not null, primary key ("id"))`,
  `alter table "nudge_failures" add constraint "nudge_failures_delivery_channel_unique" unique ("delivery_id", "channel")`,
  `create index "nudge_failures_user_id_failed_at_index" on "nudge_failures" ("user_id", "failed_at")`,
  // Keys the service generates once and every process shares (the VAPID key pair of Web Push).
  `create table "service_keys" ("name" varchar(40) not null, "public_key" text not null, "private_key" text not null, "created_at" timestamptz not null, primary key ("name"))`,
];

export class Migration20261122040000Nudges extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
