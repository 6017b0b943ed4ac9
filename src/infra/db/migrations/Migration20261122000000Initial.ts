import { Migration } from '@mikro-orm/migrations';

// Initial schema: generated from the entities (orm.schema.getCreateSchemaSQL), reviewed, plus
// foreign keys. Dedup relies on the unique (token_id, event_id) constraint.
const STATEMENTS = [
  `create table "users" ("id" uuid not null, "email" varchar(120) not null, "name" varchar(200) not null, "role" varchar(20) not null, "status" varchar(20) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"))`,
  `alter table "users" add constraint "users_email_unique" unique ("email")`,

  `create table "integrators" ("id" uuid not null, "slug" varchar(80) not null, "name" varchar(200) not null, "allowed_event_prefix" varchar(81) not null, "homepage_url" varchar(2000) null, "description" text null, "created_at" timestamptz not null, "archived_at" timestamptz null, primary key ("id"))`,
  `alter table "integrators" add constraint "integrators_slug_unique" unique ("slug")`,

  `create table "inbound_tokens" ("id" uuid not null, "kind" varchar(20) not null, "token_hash" varchar(64) not null, "prior_token_hash" varchar(64) null, "prior_valid_until" timestamptz null, "display_prefix" varchar(20) not null, "owner_user_id" uuid not null references "users" ("id"), "integrator_id" uuid not null references "integrators" ("id"), "label" varchar(80) not null, "note" text null, "daily_limit" int not null, "status" varchar(20) not null, "callback_secret" varchar(64) not null, "created_at" timestamptz not null, "rotated_at" timestamptz null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, "revoked_reason" varchar(500) null, primary key ("id"))`,
  `alter table "inbound_tokens" add constraint "inbound_tokens_token_hash_unique" unique ("token_hash")`,
  `alter table "inbound_tokens" add constraint "inbound_tokens_prior_token_hash_unique" unique ("prior_token_hash")`,
  `create index "inbound_tokens_owner_user_id_index" on "inbound_tokens" ("owner_user_id")`,

  `create table "agent_tokens" ("id" uuid not null, "token_hash" varchar(64) not null, "display_prefix" varchar(20) not null, "user_id" uuid not null references "users" ("id"), "label" varchar(80) not null, "scopes" jsonb not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, primary key ("id"))`,
  `alter table "agent_tokens" add constraint "agent_tokens_token_hash_unique" unique ("token_hash")`,
  `create index "agent_tokens_user_id_index" on "agent_tokens" ("user_id")`,

  `create table "projects" ("id" uuid not null, "slug" varchar(80) not null, "name" varchar(200) not null, "owner_user_id" uuid null references "users" ("id"), "created_at" timestamptz not null, "archived_at" timestamptz null, primary key ("id"))`,
  `alter table "projects" add constraint "projects_slug_unique" unique ("slug")`,
  `create table "project_members" ("project_id" uuid not null references "projects" ("id") on delete cascade, "user_id" uuid not null references "users" ("id"), "role" varchar(20) not null, "created_at" timestamptz not null, primary key ("project_id", "user_id"))`,
  `create index "project_members_user_id_index" on "project_members" ("user_id")`,

  `create table "deliveries" ("id" uuid not null, "token_id" uuid not null references "inbound_tokens" ("id"), "integrator_id" uuid not null references "integrators" ("id"), "recipient_user_id" uuid not null references "users" ("id"), "project_id" uuid null references "projects" ("id"), "event_id" varchar(120) not null, "event_type" varchar(60) not null, "severity" varchar(10) not null, "tone" varchar(10) null, "title" varchar(200) not null, "summary" varchar(500) null, "markdown_body" text null, "markdown_body_rendering" varchar(10) null, "external_url" varchar(2000) null, "external_status" varchar(10) null, "actor" jsonb null, "labels" jsonb null, "actions" jsonb null, "recipient_hint" jsonb null, "recipient" jsonb null, "locale" varchar(35) null, "occurred_at" timestamptz not null, "created_at" timestamptz not null, "last_event_at" timestamptz not null, "fire_count" int not null, "resolved_at" timestamptz null, "resolution_note" varchar(500) null, primary key ("id"))`,
  `alter table "deliveries" add constraint "deliveries_token_id_event_id_unique" unique ("token_id", "event_id")`,
  `create index "deliveries_integrator_id_created_at_index" on "deliveries" ("integrator_id", "created_at")`,
  `create index "deliveries_event_type_created_at_index" on "deliveries" ("event_type", "created_at")`,

  `create table "delivery_supplements" ("id" uuid not null, "delivery_id" uuid not null references "deliveries" ("id"), "markdown_body" text not null, "created_at" timestamptz not null, primary key ("id"))`,
  `create index "delivery_supplements_delivery_id_created_at_index" on "delivery_supplements" ("delivery_id", "created_at")`,

  `create table "notifications" ("id" uuid not null, "user_id" uuid not null references "users" ("id"), "type" varchar(20) not null, "title" varchar(200) not null, "summary" varchar(500) null, "body" text null, "delivery_id" uuid null references "deliveries" ("id"), "actor_user_id" uuid null, "target_url" varchar(2000) null, "tags" jsonb null, "read_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"))`,
  `alter table "notifications" add constraint "notifications_delivery_id_unique" unique ("delivery_id")`,
  `create index "notifications_user_id_created_at_index" on "notifications" ("user_id", "created_at")`,

  `create table "audit_log" ("id" uuid not null, "action" varchar(60) not null, "source" varchar(20) not null, "actor_user_id" uuid null, "token_id" uuid null, "target_type" varchar(40) null, "target_id" varchar(120) null, "request_id" varchar(130) null, "summary" jsonb null, "created_at" timestamptz not null, primary key ("id"))`,
  `create index "audit_log_actor_user_id_created_at_index" on "audit_log" ("actor_user_id", "created_at")`,
  `create index "audit_log_action_created_at_index" on "audit_log" ("action", "created_at")`,
  `create index "audit_log_token_id_created_at_index" on "audit_log" ("token_id", "created_at")`,
];

export class Migration20261122000000Initial extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
