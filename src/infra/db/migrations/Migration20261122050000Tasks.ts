import { Migration } from '@mikro-orm/migrations';

// Tasks (agent tools create_task, claim_task, update_task_status, add_task_comment, list_tasks,
// get_task), daily updates (submit_daily_update) and owner intake templates
// (get_owner_intake_templates). SPEC "What the service does" 8: project isolation is enforced on
// the server, so every task query starts from the caller's project memberships
// (project_members_user_id_index) and then uses the per-project indexes below.
const STATEMENTS = [
  // Visibility is "member row or the project's owner column"; both sides indexed.
  `create index "projects_owner_user_id_index" on "projects" ("owner_user_id")`,
  // One row per project: the last task number handed out. `insert ... on conflict do update ...
  // returning` takes the row lock, so concurrent creates get distinct numbers without gaps from
  // failed reads (a rolled-back create gives its number back with the transaction).
  `create table "project_task_counters" ("project_id" uuid not null references "projects" ("id") on delete cascade, "last_number" int not null, primary key ("project_id"))`,

  // A draft may have no project (and has no code until it is published).
  `create table "tasks" ("id" uuid not null, "project_id" uuid null references "projects" ("id"), "number" int null, "code" varchar(100) null, "title" varchar(200) not null, "description" text null, "kind" varchar(10) not null, "priority" varchar(10) not null, "status" varchar(20) not null, "due_date" date null, "assignee_user_id" uuid null references "users" ("id"), "creator_user_id" uuid not null references "users" ("id"), "parent_task_id" uuid null references "tasks" ("id"), "is_draft" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, "published_at" timestamptz null, primary key ("id"))`,
  `alter table "tasks" add constraint "tasks_code_unique" unique ("code")`,
  `alter table "tasks" add constraint "tasks_project_id_number_unique" unique ("project_id", "number")`,
  `alter table "tasks" add constraint "tasks_published_has_code" check ("is_draft" or ("project_id" is not null and "code" is not null))`,
  // list_tasks: visible projects, newest first, optionally by status or priority.
  `create index "tasks_project_id_created_at_index" on "tasks" ("project_id", "created_at") where not "is_draft"`,
  `create index "tasks_project_id_status_index" on "tasks" ("project_id", "status") where not "is_draft"`,
  // list_tasks assignee=me / <id>.
  `create index "tasks_assignee_user_id_created_at_index" on "tasks" ("assignee_user_id", "created_at") where not "is_draft"`,
  `create index "tasks_parent_task_id_index" on "tasks" ("parent_task_id")`,
  `create index "tasks_creator_user_id_drafts_index" on "tasks" ("creator_user_id") where "is_draft"`,

  // `position` keeps the order the creator gave.
  `create table "task_reviewers" ("task_id" uuid not null references "tasks" ("id") on delete cascade, "user_id" uuid not null references "users" ("id"), "position" int not null, "created_at" timestamptz not null, primary key ("task_id", "user_id"))`,
  `create index "task_reviewers_user_id_index" on "task_reviewers" ("user_id")`,
  `create table "task_cc" ("task_id" uuid not null references "tasks" ("id") on delete cascade, "user_id" uuid not null references "users" ("id"), "position" int not null, "created_at" timestamptz not null, primary key ("task_id", "user_id"))`,
  `create index "task_cc_user_id_index" on "task_cc" ("user_id")`,

  `create table "task_comments" ("id" uuid not null, "task_id" uuid not null references "tasks" ("id") on delete cascade, "author_user_id" uuid not null references "users" ("id"), "body" text not null, "created_at" timestamptz not null, primary key ("id"))`,
  `create index "task_comments_task_id_created_at_index" on "task_comments" ("task_id", "created_at")`,

  // from_status is null for the first row (creation or publication).
  `create table "task_status_history" ("id" uuid not null, "task_id" uuid not null references "tasks" ("id") on delete cascade, "from_status" varchar(20) null, "to_status" varchar(20) not null, "changed_by_user_id" uuid not null references "users" ("id"), "comment_id" uuid null references "task_comments" ("id"), "created_at" timestamptz not null, primary key ("id"))`,
  `create index "task_status_history_task_id_created_at_index" on "task_status_history" ("task_id", "created_at")`,

  // One entry per user per UTC day of the service clock; a second submit overwrites it.
  `create table "daily_updates" ("user_id" uuid not null references "users" ("id"), "day" date not null, "availability_status" varchar(20) not null, "main_task_ids" uuid[] not null, "contact_window" varchar(200) null, "blockers" varchar(2000) null, "note" varchar(2000) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("user_id", "day"))`,

  // An owner's intake templates; a null column falls back to the system default.
  `create table "owner_intake_templates" ("owner_user_id" uuid not null references "users" ("id"), "description_label" varchar(200) null, "description_body" varchar(8000) null, "checklists" jsonb null, "updated_at" timestamptz not null, primary key ("owner_user_id"))`,
];

export class Migration20261122050000Tasks extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
