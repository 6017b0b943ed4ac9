import { Migration } from '@mikro-orm/migrations';
import { trigramBlockSql, trigramIndex } from './trigram.js';

// Feedback (SPEC C create_feedback, add_feedback_comment, list_feedback, get_feedback).
//  - feedback: project_id null for the triage pool (triage true); author_user_id is stored even
//    for anonymous feedback (abuse handling) and hidden by the tools; requested_project_slug keeps
//    a project_slug that did not resolve, for the triagers; delete_after is when the
//    `feedback.auto-delete` maintenance job removes the row (reads hide it from that moment on).
//  - feedback_comments: cascade with their feedback; client_message_id makes a retried comment
//    idempotent per (feedback, author).
// The columns of the fixed table contract are shared with the cross-type search (do not rename).
const STATEMENTS = [
  `create table "feedback" ("id" uuid not null, "project_id" uuid null references "projects" ("id"), "author_user_id" uuid not null references "users" ("id"), "is_anonymous" boolean not null, "title" varchar(200) not null, "body" text not null, "status" varchar(20) not null, "triage" boolean not null, "requested_project_slug" varchar(80) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "delete_after" timestamptz null, primary key ("id"))`,
  `create index "feedback_project_id_created_at_index" on "feedback" ("project_id", "created_at") where "project_id" is not null`,
  `create index "feedback_triage_created_at_index" on "feedback" ("created_at") where "triage"`,
  `create index "feedback_author_user_id_created_at_index" on "feedback" ("author_user_id", "created_at")`,
  `create index "feedback_delete_after_index" on "feedback" ("delete_after") where "delete_after" is not null`,

  `create table "feedback_comments" ("id" uuid not null, "feedback_id" uuid not null references "feedback" ("id") on delete cascade, "author_user_id" uuid not null references "users" ("id"), "body" text not null, "client_message_id" varchar(100) null, "created_at" timestamptz not null, primary key ("id"))`,
  `create index "feedback_comments_feedback_id_created_at_index" on "feedback_comments" ("feedback_id", "created_at")`,
  `create unique index "feedback_comments_client_message_id_unique" on "feedback_comments" ("feedback_id", "author_user_id", "client_message_id") where "client_message_id" is not null`,

  // Substring search over titles and bodies (the cross-type `search` tool) uses trigram GIN
  // indexes when pg_trgm is available, exactly as the Docs migration does (see its comment: on
  // embedded PGlite without the extension bundle the indexes are skipped, results are the same).
  feedbackSearchIndexesSql(),
];

/** Creates pg_trgm when available and the three trigram indexes when pg_trgm exists; else nothing. */
export function feedbackSearchIndexesSql(): string {
  return trigramBlockSql(
    'feedback search',
    [trigramIndex('feedback', 'title'), trigramIndex('feedback', 'body'), trigramIndex('feedback_comments', 'body')].join('\n    '),
  );
}

export class Migration20261122070000Feedback extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
