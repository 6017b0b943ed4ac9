import { Migration } from '@mikro-orm/migrations';

// Project repositories and pushed commits (SPEC C list_project_repositories,
// list_project_repository_commits, bind_project_repository, unbind_project_repository).
//  - user_capabilities: named grants beyond the organisation role; `code.repo.bind` lets a user
//    bind repositories in the projects they can see (granted by an operator).
//  - project_repositories: one row per (project, repository); `repo_key` is `host/full_name` in
//    lowercase, so the same URL bound twice (any spelling, .git or not, https or ssh) is the same
//    row. Unbinding archives the row (`archived_at`); binding again restores it. `webhook_secret`
//    keys the HMAC of the push webhook; it must be readable to verify signatures, so it is stored
//    as is (like the callback secrets of inbound tokens) and never returned by a read.
//  - repository_commits: one row per (repository, sha) whatever the number of deliveries;
//    `branches` collects every branch the commit was pushed to. project_id is copied from the
//    repository so the project-wide list is one index range.
const STATEMENTS = [
  `create table "user_capabilities" ("user_id" uuid not null references "users" ("id") on delete cascade, "capability" varchar(60) not null, "granted_at" timestamptz not null, primary key ("user_id", "capability"))`,

  `create table "project_repositories" ("id" uuid not null, "project_id" uuid not null references "projects" ("id"), "provider" varchar(10) not null, "repo_key" varchar(600) not null, "full_name" varchar(300) not null, "web_url" varchar(600) not null, "ssh_url" varchar(600) not null, "default_branch" varchar(255) not null, "webhook_secret" varchar(80) not null, "bound_by_user_id" uuid null references "users" ("id"), "created_at" timestamptz not null, "updated_at" timestamptz not null, "archived_at" timestamptz null, "last_push_at" timestamptz null, primary key ("id"), constraint "project_repositories_provider_check" check ("provider" in ('gitone', 'gitea')))`,
  `alter table "project_repositories" add constraint "project_repositories_project_id_repo_key_unique" unique ("project_id", "repo_key")`,

  `create table "repository_commits" ("repository_id" uuid not null references "project_repositories" ("id") on delete cascade, "sha" varchar(64) not null, "project_id" uuid not null references "projects" ("id"), "branches" text[] not null, "title" varchar(300) not null, "url" varchar(1000) null, "author_name" varchar(200) not null, "author_email" varchar(320) not null, "occurred_at" timestamptz not null, "received_at" timestamptz not null, primary key ("repository_id", "sha"))`,
  // list_project_repository_commits: newest first per project, or per repository.
  `create index "repository_commits_project_id_occurred_at_index" on "repository_commits" ("project_id", "occurred_at" desc, "sha")`,
  `create index "repository_commits_repository_id_occurred_at_index" on "repository_commits" ("repository_id", "occurred_at" desc, "sha")`,

  // bench:work (search_docs over 100,000 pages): search_docs ranks every visible
  // match with ts_rank over title (A) and body (B); computing that tsvector per row per query
  // cost ~35 µs a row (18 ms for a word on 2% of the pages). Stored once per write instead; the
  // expression is exactly the one search_docs used, so the ranking is unchanged.
  // list_tasks over 100,000 tasks: newest first across the visible projects. Walking this index
  // (and dropping rows of other projects) reads ~limit / visible-share rows instead of sorting
  // every visible task; an org-wide reader (admin, coordinator) reads just `limit` rows.
  `create index "tasks_created_at_id_index" on "tasks" ("created_at", "id") where not "is_draft"`,
  `alter table "doc_pages" add column "search_vector" tsvector generated always as (setweight(to_tsvector('simple', "title"), 'A') || setweight(to_tsvector('simple', left("body", 20000)), 'B')) stored`,
];

export class Migration20261122080000Repositories extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
