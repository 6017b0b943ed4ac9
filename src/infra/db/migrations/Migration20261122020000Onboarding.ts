import { Migration } from '@mikro-orm/migrations';

// Invited users (agent tool `invite_user`): a profile (employment type, location, UI language),
// the onboarding checklist and notification preferences. One row per user in each table.
const STATEMENTS = [
  `create table "user_profiles" ("user_id" uuid not null references "users" ("id"), "employment_type" varchar(20) not null, "location" varchar(20) not null, "ui_language" varchar(10) not null, "invited_by_user_id" uuid null references "users" ("id"), "invited_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("user_id"))`,
  `create table "onboarding_checklists" ("id" uuid not null, "user_id" uuid not null references "users" ("id"), "items" jsonb not null, "created_by_user_id" uuid null references "users" ("id"), "created_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"))`,
  `alter table "onboarding_checklists" add constraint "onboarding_checklists_user_id_unique" unique ("user_id")`,
  `create table "notification_preferences" ("user_id" uuid not null references "users" ("id"), "inbox" boolean not null, "push" boolean not null, "chat" boolean not null, "email_digest" varchar(20) not null, "locale" varchar(10) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("user_id"))`,
];

export class Migration20261122020000Onboarding extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
