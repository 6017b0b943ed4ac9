// Hot statements (text starting with PREPARED, domain/sql-hints.ts) run on PostgreSQL as named
// prepared statements (infra/db/prepared-statements.ts): the ORM's connection is the
// PreparedStatementConnection, installed through the connection class AbstractSqlDriver's
// constructor takes (no private MikroORM field is written). If a MikroORM upgrade changed that
// route, the connection would be a plain PostgreSqlConnection and these tests fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createDeps, type Deps } from '../../../src/deps.js';
import { PREPARED, PREPARED_IF_ROOM } from '../../../src/domain/sql-hints.js';
import { PreparedStatementConnection, PreparedStatementDriver } from '../../../src/infra/db/prepared-statements.js';
import { createDatabase } from '../../helpers/harness.js';

let deps: Deps;
let db: Awaited<ReturnType<typeof createDatabase>>;
beforeAll(async () => {
  db = await createDatabase();
  // One pooled connection: the statements below all run on it, so its prepared statements are visible.
  deps = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', WORKER: 'off', DB_POOL_MAX: '1' }, 'test'), { role: 'cli' });
});
afterAll(async () => {
  await deps?.close();
  await db?.drop();
});

const prepared = async () =>
  (await deps.orm.em.getConnection().execute(`select name, statement from pg_prepared_statements where name like 'fx\\_%'`)) as Array<{
    name: string;
    statement: string;
  }>;

describe('prepared statements', () => {
  it('the ORM runs on the prepared-statement driver and connection', () => {
    expect(deps.orm.config.getDriver()).toBeInstanceOf(PreparedStatementDriver);
    expect(deps.orm.em.getConnection()).toBeInstanceOf(PreparedStatementConnection);
  });

  it('a PREPARED statement is prepared once per connection with numbered placeholders, and answers like any other', async () => {
    const sql = `${PREPARED} select ?::int + 1 as n, ?::text as label`;
    const conn = deps.orm.em.getConnection();
    expect(await conn.execute(sql, [41, 'x'])).toEqual([{ n: 42, label: 'x' }]);
    expect(await conn.execute(sql, [1, 'y'])).toEqual([{ n: 2, label: 'y' }]);
    const mine = (await prepared()).filter((p) => p.statement.includes('as label'));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.name).toMatch(/^fx_[0-9a-f]{16}$/);
    expect(mine[0]!.statement).toContain('select $1::int + 1 as n, $2::text as label');
  });

  it('inside a transaction the same text runs through MikroORM unprepared, in that transaction', async () => {
    const sql = `${PREPARED} select ?::int * 2 as doubled`;
    const rows = await deps.orm.em.fork().transactional(async (em) => em.getConnection().execute(sql, [21], 'all', em.getTransactionContext()));
    expect(rows).toEqual([{ doubled: 42 }]);
    expect((await prepared()).filter((p) => p.statement.includes('doubled'))).toHaveLength(0);
  });

  it('PREPARED_IF_ROOM texts are prepared while they leave half the room (200 texts) to PREPARED ones, which still get theirs', async () => {
    const conn = deps.orm.em.getConnection();
    // The texts the other tests prepared, then varying texts until the half is reached.
    for (let i = 0; i < 120; i++) expect(await conn.execute(`${PREPARED_IF_ROOM} select ?::int + ${i} as room_${i}`, [1])).toEqual([{ [`room_${i}`]: 1 + i }]);
    const roomy = (await prepared()).filter((p) => p.statement.includes(' as room_'));
    expect(roomy.length).toBeGreaterThan(90);
    expect(roomy.length).toBeLessThan(100);
    // Past the half: answered, unprepared; a fixed hot text is still prepared.
    expect(await conn.execute(`${PREPARED_IF_ROOM} select ?::int as room_late`, [7])).toEqual([{ room_late: 7 }]);
    expect((await prepared()).some((p) => p.statement.includes('room_late'))).toBe(false);
    expect(await conn.execute(`${PREPARED} select ?::int as fixed_hot`, [8])).toEqual([{ fixed_hot: 8 }]);
    expect((await prepared()).some((p) => p.statement.includes('fixed_hot'))).toBe(true);
  });

  it('the hot publish path uses them: the token lookup is prepared after a first authenticated call', async () => {
    await deps.ports.tokens.findInbound('no-such-hash');
    expect((await prepared()).some((p) => p.statement.includes('matched_hash'))).toBe(true);
  });
});
