// Group commit of single publishes (src/domain/events/publish-batcher.ts): one statement at a time
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
