// A publish statement that loses a deadlock is run again, never answered 500 (seen under three nodes
// behind a balancer: two processes' group-commit statements locked one token's and one user's daily
// counter rows in different orders). Here a second connection builds the cycle for real: it holds the
// user's counter row, the publish takes the token's counter row and waits for the user's, then the
// second connection asks for the token's row. PostgreSQL aborts the statement that has waited longer
// (the publish: it checks first, after deadlock_timeout) and the publish must still answer 202.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('deadlock between publish statements', () => {
  it('the statement that lost is run again: 202, the event stored once, the counters right', async () => {
    const t = await newPersonalToken(h);
    expect((await publish(h, t.token, event(h))).status).toBe(202);
    const day = new Date(h.clock.now().getTime()).toISOString().slice(0, 10);

    const other = new pg.Client({ connectionString: h.databaseUrl });
    await other.connect();
    // PostgreSQL aborts the statement whose deadlock_timeout (1 s) passes first once the cycle is
    // closed: the publish's, unless a loaded machine let it pass before this connection closed the
    // cycle (then this connection loses, and the publish goes through). Up to three tries for the
    // publish to be the one that lost.
    let publishLost = false;
    let published = 1;
    try {
      for (let attempt = 0; attempt < 3 && !publishLost; attempt++) {
        await other.query('begin');
        await other.query('select 1 from user_daily_counts where user_id = $1 and day = $2 for update', [t.user.userId, day]);
        const ev = event(h);
        const pending = publish(h, t.token, ev);
        published++;
        // Wait until the publish holds the token's counter row (and waits for the user's).
        let holds = false;
        for (let i = 0; i < 200 && !holds; i++) {
          await new Promise((r) => setTimeout(r, 10));
          holds = await other.query('savepoint probe').then(async () => {
            try {
              await other.query('select 1 from token_daily_counts where token_id = $1 and day = $2 for update nowait', [t.tokenId, day]);
              await other.query('rollback to savepoint probe');
              return false;
            } catch {
              await other.query('rollback to savepoint probe');
              return true;
            }
          });
        }
        expect(holds).toBe(true);
        // Close the cycle.
        publishLost = await other.query('select 1 from token_daily_counts where token_id = $1 and day = $2 for update', [t.tokenId, day]).then(
          () => true,
          (err: { code?: string }) => {
            expect(err.code).toBe('40P01');
            return false;
          },
        );
        await other.query(publishLost ? 'commit' : 'rollback');
        const r = await pending;
        expect(r.status).toBe(202);
        const rows = await other.query('select fire_count from deliveries where token_id = $1 and event_id = $2', [t.tokenId, ev.event_id]);
        expect(rows.rows).toEqual([{ fire_count: 1 }]);
      }
      expect(publishLost).toBe(true);
      const counts = await other.query('select count from token_daily_counts where token_id = $1 and day = $2', [t.tokenId, day]);
      expect(counts.rows).toEqual([{ count: published }]);
    } finally {
      await other.query('rollback').catch(() => undefined);
      await other.end();
    }
  });
});
