// A port already in use when the service starts: an explicit PORT fails the start with EADDRINUSE,
// and nothing the start had opened (database pools, the nudge worker, maintenance jobs) is left
// behind. With PORT=0 the service picks a free port itself and tries another when one is taken
// between choosing and listening (src/main.ts startService).
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase, startHarness } from '../../helpers/harness.js';

let db: Awaited<ReturnType<typeof createDatabase>>;
let blocker: net.Server;
let port: number;

beforeAll(async () => {
  db = await createDatabase();
  blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  port = (blocker.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((r) => blocker?.close(() => r()));
  await db?.drop();
});

/** Sessions on the test database other than the one asking. */
async function sessions(): Promise<number> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    const { rows } = await c.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`);
    return rows[0].n as number;
  } finally {
    await c.end();
  }
}

it('an explicit PORT in use: the start fails with EADDRINUSE and closes everything it had opened', async () => {
  await expect(startHarness({ databaseUrl: db.url, env: { PORT: String(port) } })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  // Pools end their sessions as they close; the server side may take a moment to drop them.
  const deadline = Date.now() + 10_000;
  let n = await sessions();
  while (n > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    n = await sessions();
  }
  expect(n).toBe(0);

  // The same database serves a start on a free port at once.
  const h = await startHarness({ databaseUrl: db.url });
  expect((await fetch(`${h.baseUrl}/api/v1/health`)).status).toBe(200);
  await h.close();
});
