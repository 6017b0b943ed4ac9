// DB_CONN_MAX_LIFETIME_S: pooled PostgreSQL connections are replaced after that many seconds
// (default 900, 0 = never), so the hot prepared statements are planned again against the tables'
// current size (README "Keep autovacuum on"). The closing itself is pg-pool's maxLifetimeSeconds;
// these tests check the setting reaches the pool the service really uses.
import { describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import { loadConfig } from '../../../src/config.js';
import { createDeps } from '../../../src/deps.js';
import { createDatabase } from '../../helpers/harness.js';

async function poolOptions(env: Record<string, string>): Promise<Pool['options']> {
  const db = await createDatabase();
  const deps = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', WORKER: 'off', ...env }, 'test'), { role: 'cli' });
  try {
    const pool = (await deps.orm.em.getConnection().getNativeClient()) as Pool;
    // The pool serves queries with the setting in place.
    expect(await pool.query('select 1 as one')).toMatchObject({ rows: [{ one: 1 }] });
    return pool.options;
  } finally {
    await deps.close();
    await db.drop();
  }
}

describe('DB_CONN_MAX_LIFETIME_S', () => {
  it('defaults to 900 s and accepts 0 (never) up to a day; anything else is a configuration error', () => {
    expect(loadConfig({}).dbConnMaxLifetimeS).toBe(900);
    expect(loadConfig({ DB_CONN_MAX_LIFETIME_S: '0' }).dbConnMaxLifetimeS).toBe(0);
    expect(loadConfig({ DB_CONN_MAX_LIFETIME_S: '86400' }).dbConnMaxLifetimeS).toBe(86400);
    for (const bad of ['-1', '86401', '1.5', 'soon']) expect(() => loadConfig({ DB_CONN_MAX_LIFETIME_S: bad }), bad).toThrow(/DB_CONN_MAX_LIFETIME_S/);
  });

  it("becomes the PostgreSQL pool's maxLifetimeSeconds, next to DB_POOL_MAX", async () => {
    expect(await poolOptions({})).toMatchObject({ maxLifetimeSeconds: 900, max: 20 });
    expect(await poolOptions({ DB_CONN_MAX_LIFETIME_S: '60', DB_POOL_MAX: '7' })).toMatchObject({ maxLifetimeSeconds: 60, max: 7 });
  });
});
