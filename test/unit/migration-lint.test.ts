// scripts/migration-lint.mjs (run by scripts/upgrade-check.sh; rules in docs/migrations.md): which
// statements of a migration added since the release baseline it reports, at which level, and
// that a released migration's comments and formatting may change but its statements may not.
import { describe, expect, it } from 'vitest';
import { lintMigration, normalized } from '../../scripts/migration-lint.mjs';

const migration = (...sql: string[]) =>
  `import { Migration } from '@mikro-orm/migrations';\n// a comment: drop table "users" is not a statement\nconst S = [\n${sql.map((s) => `  \`${s}\`,`).join('\n')}\n];\n`;
const ids = (...sql: string[]) => lintMigration('M1', migration(...sql)).map((f) => `${f.level} ${f.rule} ${f.object}`);

describe('migration lint', () => {
  it('reports what breaks the previous release as errors', () => {
    expect(ids(`alter table "deliveries" drop column "title"`)).toContain('error drop-column title');
    expect(ids(`drop table if exists "feedback"`)).toContain('error drop-table feedback');
    expect(ids(`alter table "users" rename column "name" to "display_name"`)).toContain('error rename name');
    expect(ids(`alter table "users" rename to "people"`)).toContain('error rename-table users');
    expect(ids(`alter table "users" alter column "name" type text`)).toContain('error column-type-change name');
    expect(ids(`alter table "users" alter column "name" set not null`)).toContain('error set-not-null name');
    expect(ids(`alter table "inbox_counters" drop constraint "inbox_counters_pkey"`)).toContain('error drop-constraint inbox_counters_pkey');
    expect(ids(`alter table "deliveries" add column "region" varchar(8) not null`)).toContain('error not-null-without-default deliveries.region');
  });

  it('accepts additions the previous release does not see', () => {
    const found = ids(
      `create table "t" ("id" uuid not null, "n" numeric(10,2) not null, primary key ("id"))`,
      `create index "t_n_index" on "t" ("n")`,
      `alter table "t" add constraint "t_n_check" check (n > 0) not valid`,
      `alter table "t" validate constraint "t_n_check"`,
    );
    expect(found).toEqual([]);
    expect(
      ids(`set local lock_timeout = '5s'`, `alter table "deliveries" add column "a" timestamptz null, add column "b" numeric(10,2) not null default 0`),
    ).toEqual([]);
  });

  it('reports lock and speed costs for the running previous release as warnings', () => {
    const found = ids(
      `alter table "notifications" add column "state" varchar(8) not null default 'inbox'`,
      `alter table "notifications" add constraint "c" check (state <> '') not valid`,
      `alter table "notifications" validate constraint "c"`,
      `create index "n_state_index" on "notifications" ("state")`,
      `drop index if exists "notifications_old_index"`,
      `update "notifications" set state = 'inbox'`,
      `create or replace function f() returns trigger language plpgsql as $$ begin return null; end $$`,
    );
    expect(found).toEqual([
      'warning drop-index notifications_old_index',
      'warning replace-function f',
      'warning rewrite-rows notifications',
      'warning validate-in-transaction notifications',
      'warning index-on-existing-table n_state_index on notifications',
      'warning no-lock-timeout notifications',
    ]);
  });

  it('compares a released migration without comments, whitespace and trailing commas', () => {
    const before = `const S = [\n  // old note\n  \`create table "a" ("id" uuid)\`,\n];\nf(x, y);`;
    expect(normalized(`const S = [ \`create table "a" ("id" uuid)\` ];\n// new note\nf(\n  x,\n  y,\n);`)).toBe(normalized(before));
    expect(normalized(`const S = [\`create table "a" ("id" uuid, "b" int)\`];\nf(x, y);`)).not.toBe(normalized(before));
  });
});
