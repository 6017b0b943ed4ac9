// ORM bootstrap: PostgreSQL when DATABASE_URL is set, embedded PGlite under DATA_DIR otherwise.
// Same entities and the same migration files on both.
import { MikroORM as PgORM } from '@mikro-orm/postgresql';
import { MikroORM as PgliteORM } from '@mikro-orm/pglite';
import { Migrator } from '@mikro-orm/migrations';
import type { MikroORM } from '@mikro-orm/core';
import pg from 'pg';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { ENTITIES } from '../../domain/entities.js';
import { preparedStatementDriver } from './prepared-statements.js';
import type { Tracer } from '../tracing/tracing.js';
import { MIGRATIONS, POST_DEPLOY_MIGRATIONS } from './migrations/index.js';

export interface OrmOptions {
  databaseUrl?: string;
  dataDir: string;
  poolMax: number;
  /**
   * Seconds after which a pooled PostgreSQL connection is closed and replaced (0 = never). The hot
   * statements are prepared per connection and keep their plan for its life (until an ANALYZE of
   * their tables); a new connection plans them again against the tables' current size, so a plan
   * made on a nearly empty table (a sequential scan) is gone within this time even where
   * autovacuum never runs.
   */
  connMaxLifetimeS: number;
  /** deps.tracer: a client span per PostgreSQL statement inside a trace (none on PGlite). */
  tracer?: Tracer | null;
}

const common = {
  entities: ENTITIES,
  extensions: [Migrator] as [typeof Migrator],
  // Each migration in its own transaction (recorded with it: a failed run resumes after the last
  // committed one), bar those that say they cannot run in one (CREATE INDEX CONCURRENTLY).
  migrations: { migrationsList: MIGRATIONS, silent: true, transactional: true, allOrNothing: false, snapshot: false, tableName: 'mikro_orm_migrations' },
  discovery: { warnWhenNoEntities: true },
  allowGlobalContext: false,
  debug: false,
};

export async function openOrm(opts: OrmOptions): Promise<MikroORM> {
  if (opts.databaseUrl) {
    return PgORM.init({
      ...common,
      driver: preparedStatementDriver(opts.tracer ?? null),
      clientUrl: opts.databaseUrl,
      pool: { min: 0, max: opts.poolMax },
      // pg-pool's own option: an expired connection is closed when idle, or when it is next released.
      // No JIT and no parallel workers on the service's sessions: its statements are short. A
      // search over a large inbox crossed jit_above_cost and compiled for 1.5-2 s what runs in
      // milliseconds; an inbox page of 50 started two workers (Gather Merge) for ~10 ms of start-up
      // to read 51 rows (both measured with bench:search).
      // fluxdesk.writes_delivery_keys: this release writes a delivery's dedup key itself; the
      // trigger kept for the previous release's writes skips its rows
      // (Migration20261201400000DeliveryKeys).
      driverOptions: {
        maxLifetimeSeconds: opts.connMaxLifetimeS,
        options: `-c jit=off -c max_parallel_workers_per_gather=0 -c ${WRITES_DELIVERY_KEYS}=on`,
      },
    }) as unknown as Promise<MikroORM>;
  }
  const dir = path.resolve(opts.dataDir, 'pgdata');
  mkdirSync(dir, { recursive: true });
  // PGlite serialises connections; one connection avoids waits and failed transactions.
  // pg_trgm is loaded so document search gets the same trigram indexes as on PostgreSQL.
  const orm = (await PgliteORM.init({ ...common, dbName: dir, pool: { min: 1, max: 1 }, driverOptions: { extensions: { pg_trgm } } })) as unknown as MikroORM;
  // The one connection's session setting (see above); lost with the connection, the trigger then
  // writes the keys again (on conflict do nothing): slower, never wrong.
  await orm.em.fork().getConnection().execute(`set ${WRITES_DELIVERY_KEYS} = 'on'`);
  return orm;
}

/** The session setting that tells the delivery-keys trigger this connection writes the keys itself. */
const WRITES_DELIVERY_KEYS = 'fluxdesk.writes_delivery_keys';

/**
 * Applies pending migrations. On PostgreSQL several processes may start at once (a rollout):
 * a session advisory lock on a separate connection lets one migrate while the others wait,
 * then find nothing left to do. PGlite has one owner process (DATA_DIR lock).
 */
export async function migrate(orm: MikroORM, databaseUrl?: string, opts: { postDeploy?: boolean } = {}): Promise<string[]> {
  // Pending migrations in list order; the post-deploy ones only when asked (embedded: always).
  const names = MIGRATIONS.map((m) => m.name).filter((n) => opts.postDeploy === true || !databaseUrl || !POST_DEPLOY_MIGRATIONS.has(n));
  const up = async () => (await orm.migrator.up({ migrations: names })).map((m) => m.name);
  if (!databaseUrl) return up();
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  try {
    // Polled, never waited for in a statement: a waiting statement holds a snapshot, and CREATE
    // INDEX CONCURRENTLY in the migrating process waits for every older snapshot (a deadlock
    // nobody detects: the lock's holder waits for its own index build).
    while (!(await lock.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [MIGRATION_LOCK_KEY])).rows[0]?.ok) {
      await new Promise((r) => setTimeout(r, MIGRATION_LOCK_POLL_MS));
    }
    return await up();
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.end();
  }
}

/** How often a process waiting for another's migrations asks for the lock again. */
const MIGRATION_LOCK_POLL_MS = 200;

/** Arbitrary constant: "fluxdesk migrations". */
const MIGRATION_LOCK_KEY = 0x0f1d0e5c;
