// Raw SQL for repositories (*.repository.ts), the one place outside infra/ that writes SQL. Runs
// on the EntityManager's connection and in its transaction when it is in one (a writing
// operation's, opened by the runner), so a named query joins the operation's commit.
import type { EntityManager } from '@mikro-orm/core';

/** Every row of `sql` (`?` placeholders) as `T`. */
export function run<T>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  return em.getConnection().execute(sql, params as unknown[], 'all', em.getTransactionContext()) as Promise<T[]>;
}
