// ORM bootstrap: PostgreSQL when DATABASE_URL is set, embedded PGlite under DATA_DIR otherwise.
// Same entities and the same migration files on both.
import { MikroORM as PgORM } from '@mikro-orm/postgresql';
import { MikroORM as PgliteORM } from '@mikro-orm/pglite';
import { Migrator } from '@mikro-orm/migrations';
import type { MikroORM } from '@mikro-orm/core';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { ENTITIES } from '../../domain/entities.js';
import { PreparedStatementDriver } from './prepared-statements.js';
import { MIGRATIONS } from './migrations/index.js';

export interface OrmOptions {
  databaseUrl?: string;
  dataDir: string;
  poolMax: number;
}

const common = {
  entities: ENTITIES,
  extensions: [Migrator] as [typeof Migrator],
  migrations: { migrationsList: MIGRATIONS, silent: true, transactional: true, allOrNothing: true, snapshot: false, tableName: 'mikro_orm_migrations' },
  discovery: { warnWhenNoEntities: true },
  allowGlobalContext: false,
  debug: false,
};

export async function openOrm(opts: OrmOptions): Promise<MikroORM> {
  if (opts.databaseUrl) {
    return PgORM.init({ ...common, driver: PreparedStatementDriver, clientUrl: opts.databaseUrl, pool: { min: 0, max: opts.poolMax } }) as unknown as Promise<MikroORM>;
  }
  const dir = path.resolve(opts.dataDir, 'pgdata');
  mkdirSync(dir, { recursive: true });
  // PGlite serialises connections; one connection avoids waits and failed transactions.
  return PgliteORM.init({ ...common, dbName: dir, pool: { min: 1, max: 1 } }) as unknown as Promise<MikroORM>;
}

export async function migrate(orm: MikroORM): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}
