// Nudge dispatch yields to requests (src/infra/queue/dispatch-pacer.ts): while the process has at
// least NUDGE_YIELD_INFLIGHT operations in flight, one loop claims YIELD_BATCH nudges at a time
// (nudges still leave, at a trickle); after NUDGE_MAX_DEFER_S of one busy spell (service clock) the
// dispatcher runs at full speed again although the load goes on. The load here is one publish
// that stays in flight while it waits for a row lock the test holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { YIELD_BATCH } from '../../../src/infra/queue/dispatch-pacer.js';
import { event, holdRowLock, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { startReceiver, until, type Receiver } from './receiver.js';

let h: Harness;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startHarness({
    env: {
      NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1',
      PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1',
      NUDGE_RELAY_INTERVAL_MS: '50',
      NUDGE_YIELD_INFLIGHT: '1',
      NUDGE_MAX_DEFER_S: '30',
    },
  });
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

describe('nudge dispatch under request load', () => {
  it('trickles while operations are in flight, and goes full speed after NUDGE_MAX_DEFER_S of one busy spell', async () => {
    const q = h.svc.nudges!;
    const t = await newPersonalToken(h);
    const chatPath = `/chat/yield-${t.user.userId}`;
    await sql(
      `insert into nudge_preferences (user_id, push_severities, chat_enabled, chat_url, chat_style, updated_at) values (?, '{critical,warn}', true, ?, 'slack', now())`,
      [t.user.userId, `${rx.url}${chatPath}`],
    );

    const blocker = await newPersonalToken(h);
    const ev = event(h);
    const first = await publish(h, blocker.token, ev);
    expect(first.status).toBe(202);
    const lock = await holdRowLock(h, 'deliveries', first.body.deliveryId);
    const stuck = publish(h, blocker.token, ev);
    try {
      await until('an operation in flight', () => h.svc.deps.load.inFlight >= 1);
      const before = { ...q.claims };
      const n = YIELD_BATCH + 5;
      for (let i = 0; i < n; i++) {
        const r = await publish(h, t.token, event(h));
        expect(r.status).toBe(202);
        expect(r.body.pushed).toBe(true);
      }
      await until(`${n} chat messages`, () => rx.hitsFor(chatPath).length === n);
      // Busy: every claim was a small one from one loop.
      expect(q.claims.yield).toBeGreaterThan(before.yield);
      expect(q.claims.full).toBe(before.full);

      h.clock.advance(30_000);
      const later = { ...q.claims };
      await until('a full-speed claim while still busy', () => q.claims.full > later.full);
      expect(h.svc.deps.load.inFlight).toBeGreaterThanOrEqual(1);
      const r = await publish(h, t.token, event(h));
      expect(r.status).toBe(202);
      await until(`${n + 1} chat messages`, () => rx.hitsFor(chatPath).length === n + 1);
    } finally {
      await lock.release();
    }
    expect((await stuck).status).toBe(200);
    await until('no operation in flight', () => h.svc.deps.load.inFlight === 0);
  });
});
