// Types of scripts/migration-lint.mjs for its unit test (test/unit/migration-lint.test.ts).
export interface MigrationFinding {
  migration: string;
  rule: string;
  level: 'error' | 'warning';
  object: string;
  what: string;
  /** `<migration>: <rule> <object>`: what an api/migration-exceptions.json entry names. */
  id: string;
}
export function stripComments(text: string): string;
export function normalized(text: string): string;
export function lintMigration(name: string, source: string): MigrationFinding[];
