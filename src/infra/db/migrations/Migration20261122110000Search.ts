import { Migration } from '@mikro-orm/migrations';
import { trigramBlockSql, trigramIndex } from './trigram.js';

// Meetings (minimal model) and the indexes behind the cross-type search tool (SPEC C `search`).
//  - meetings: only what `search` needs to name a meeting: title, time, project. Nothing else
//    (attendees, agenda, recurrence) is modelled; operators create them (meetings.create).
//  - Substring search (`lower(col) like lower('%q%')`) over tasks, task comments, meetings,
//    feedback and feedback comments is served by pg_trgm GIN indexes on lower(col), one per
//    searched column, so an OR over the columns of one table becomes a BitmapOr of index scans.
//    Ranking uses full-text (ts_rank on a 'simple' tsvector) computed for the matched rows only.
//  - Notifications get NO trigram index on purpose: they are written on the inbound publish hot
//    path (and rewritten on every deduplicated repeat), and three GIN trigram indexes on title,
//    summary and body made a notification insert ~8x dearer here (20,000 single-row inserts:
//    0.66 s without, 5.4 s with). Search only ever reads the caller's own notifications, so it
//    walks the notifications (user_id, created_at...) index (at most 500 new rows per user per day) and
//    checks the substring on those rows. To trade write speed for search speed, add
//    idx('notifications', 'title' | 'summary' | 'body') below in a later migration.
//    pg_trgm is created when available (PostgreSQL contrib; PGlite is started with its bundle in
//    infra/db/orm.ts); without it the indexes are skipped and search falls back to scans with the
//    same results. The feedback tables come from Migration20261122070000Feedback; their indexes
//    are created only when the tables exist, so this block never fails on an older schema.
const STATEMENTS = [
  `create table "meetings" ("id" uuid not null, "project_id" uuid not null references "projects" ("id"), "title" varchar(200) not null, "starts_at" timestamptz not null, "ends_at" timestamptz null, "created_by_user_id" uuid not null references "users" ("id"), "created_at" timestamptz not null, primary key ("id"), constraint "meetings_ends_after_start_check" check ("ends_at" is null or "ends_at" >= "starts_at"))`,
  `create index "meetings_project_id_starts_at_index" on "meetings" ("project_id", "starts_at")`,
  searchIndexesSql(),
];

/** Trigram indexes for every column `search` matches (idempotent; skipped without pg_trgm). */
export function searchIndexesSql(): string {
  const idx = trigramIndex;
  return trigramBlockSql(
    'search',
    `${idx('tasks', 'title')}
    ${idx('tasks', 'description')}
    ${idx('task_comments', 'body')}
    ${idx('meetings', 'title')}
    if to_regclass('feedback') is not null then
      ${idx('feedback', 'title')}
      ${idx('feedback', 'body')}
    end if;
    if to_regclass('feedback_comments') is not null then
      ${idx('feedback_comments', 'body')}
    end if;`,
  );
}

export class Migration20261122110000Search extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
