// Group commit of single publishes (src/infra/events/group-commit.ts): one statement at a time
// while the statements are quick (fuller statements), but a statement that is stuck (here: waiting
// for a row lock another transaction holds) never holds up the publishes queued behind it: a second
// statement starts once the first has run 25 ms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, holdRowLock, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('group commit', () => {
  it('a publish waiting for a row lock does not hold up other tokens; it completes when the lock goes', async () => {
    const a = await newPersonalToken(h);
    const ev = event(h);
    const first = await publish(h, a.token, ev);
    expect(first.status).toBe(202);
    const lock = await holdRowLock(h, 'deliveries', first.body.deliveryId);
    let repeat: Awaited<ReturnType<typeof publish>> | undefined;
    const repeating = publish(h, a.token, ev).then((r) => (repeat = r));
    try {
      // The repeat's statement now waits for the row: other publishes still go through, one by one.
      for (let i = 0; i < 3; i++) {
        const other = await newPersonalToken(h);
        const r = await publish(h, other.token, event(h));
        expect(r.status).toBe(202);
      }
      expect(repeat).toBeUndefined();
    } finally {
      await lock.release();
    }
    await repeating;
    expect(repeat!.status).toBe(200);
    expect(repeat!.body).toMatchObject({ deliveryId: first.body.deliveryId, fireCount: 2, deduped: true });
  });
});

describe('group commit: repeats', () => {
  const sql = (q: string, p: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, p);
  const stats = () => h.svc.deps.ports.events.groupCommit.stats();

  it('a repeat of a pair this process wrote goes in a repeat statement, with the answer, audit and inbox row of a repeat', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h, { external_status: 'firing' });
    const first = await publish(h, t.token, ev);
    expect(first.status).toBe(202);
    const [before] = await sql(`select title, updated_at from notifications where delivery_id = ?`, [first.body.deliveryId]);
    const s0 = stats();
    const same = await publish(h, t.token, ev);
    const s1 = stats();
    expect(s1.repeat - s0.repeat).toBe(1);
    expect(s1.full - s0.full).toBe(0);
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({
      deliveryId: first.body.deliveryId,
      fireCount: 2,
      deduped: true,
      pushed: false,
      degraded: false,
      externalStatus: 'firing',
    });
    // The same text: the inbox row is left as it was (updatedAt does not move).
    expect(await sql(`select title, updated_at from notifications where delivery_id = ?`, [first.body.deliveryId])).toEqual([before]);

    const changed = await publish(h, t.token, { ...ev, title: 'Build fixed', external_status: 'resolved' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ fireCount: 3, deduped: true, title: ev.title, externalStatus: 'resolved' });
    const [after] = await sql(`select title from notifications where delivery_id = ?`, [first.body.deliveryId]);
    expect(after.title).toBe('Build fixed');
    expect(stats().repeat - s0.repeat).toBe(2);

    const audit = await sql(`select action, summary from audit_log where target_id = ? order by (summary->>'fire_count')::int`, [first.body.deliveryId]);
    expect(audit.map((a: { action: string }) => a.action)).toEqual(['inbound.event.received', 'inbound.event.deduped', 'inbound.event.deduped']);
    expect(audit[2].summary).toMatchObject({ event_id: ev.event_id, fire_count: 3, degraded: false });
    expect(await sql(`select count(*)::int as n from deliveries where token_id = ? and event_id = ?`, [t.tokenId, ev.event_id])).toEqual([{ n: 1 }]);
  });

  // Gone as retention removes it: its dedup key first, then the delivery (docs/scaling.md section 4).
  it('a pair whose delivery is gone is handed back to the full statement and arrives as new', async () => {
    const t = await newPersonalToken(h);
    const ev = event(h);
    const first = await publish(h, t.token, ev);
    expect(first.status).toBe(202);
    await sql(`delete from nudge_outbox where delivery_id = ?`, [first.body.deliveryId]);
    await sql(`delete from notifications where delivery_id = ?`, [first.body.deliveryId]);
    await sql(`delete from delivery_keys where delivery_id = ?`, [first.body.deliveryId]);
    await sql(`delete from deliveries where id = ?`, [first.body.deliveryId]);
    const s0 = stats();
    const again = await publish(h, t.token, ev);
    const s1 = stats();
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ fireCount: 1, deduped: false });
    expect(again.body.deliveryId).not.toBe(first.body.deliveryId);
    expect([s1.repeat - s0.repeat, s1.handedBack - s0.handedBack, s1.full - s0.full]).toEqual([1, 1, 1]);
  });
});
