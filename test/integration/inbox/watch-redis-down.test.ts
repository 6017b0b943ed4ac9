// The inbox feed while Redis is away (private redis-server, never the shared one): a publish is
// still accepted at once (the feed is fire and forget, its failure never fails the write); a new
// WatchInbox cannot subscribe and answers unavailable; once Redis is back, a stream opened before
// the outage gets changes again (the subscriber connection re-subscribes) and new streams work.
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboxService, type WatchInboxResponse } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { withToken } from '../../helpers/agents.js';
import { bearer, transportFor } from '../../helpers/connect.js';
import { event, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { privateRedis, waitFor, type PrivateRedis } from '../../helpers/redis-server.js';

let redis: PrivateRedis;
let h: Harness;
beforeAll(async () => {
  redis = await privateRedis();
  h = await startHarness({ redisUrl: redis.url });
});
afterAll(async () => {
  await h?.close();
  await redis?.dispose();
});

function stream(token: string) {
  const ac = new AbortController();
  const it = createClient(InboxService, transportFor(h, 'connect', [bearer(token)]))
    .watchInbox({}, { signal: ac.signal })
    [Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<WatchInboxResponse>> | undefined;
  return {
    async next(ms: number): Promise<WatchInboxResponse> {
      const r = await Promise.race([(pending ??= it.next()), new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`nothing within ${ms} ms`)), ms))]);
      pending = undefined;
      if (r.done) throw new Error('stream ended');
      return r.value;
    },
    close: () => ac.abort(),
  };
}

describe('WatchInbox with Redis away', () => {
  it('publishes still succeed, new streams answer unavailable, and everything works again once Redis is back', async () => {
    const pt = await newPersonalToken(h);
    const ag = await withToken(h, pt.user, ['read:inbox']);
    const before = stream(ag.token);
    expect((await before.next(5000)).change.case).toBe('ready');

    await redis.stop();
    await waitFor(() => h.svc.deps.redis?.status !== 'ready');
    const started = performance.now();
    const r = await publish(h, pt.token, event(h));
    expect(r.status).toBe(202);
    expect(performance.now() - started).toBeLessThan(2000);

    // A second stream of the same user (its channel was subscribed before), and a first one of
    // another user (a SUBSCRIBE that cannot go out): both unavailable, neither hangs.
    const other = await newPersonalToken(h);
    const otherAgent = await withToken(h, other.user, ['read:inbox']);
    for (const token of [ag.token, otherAgent.token]) {
      const during = stream(token);
      let err: ConnectError | undefined;
      try {
        await during.next(10_000);
      } catch (e) {
        err = ConnectError.from(e);
      }
      expect(err?.code).toBe(Code.Unavailable);
    }

    await redis.start();
    await waitFor(() => h.svc.deps.redis?.status === 'ready', 15_000);
    // The subscriber connection reconnects and re-subscribes on its own schedule: publish until the
    // old stream hears of one (each publish is a new event), at most for 15 s.
    let heard: WatchInboxResponse | undefined;
    const deadline = performance.now() + 15_000;
    while (!heard && performance.now() < deadline) {
      expect((await publish(h, pt.token, event(h))).status).toBe(202);
      heard = await before.next(500).catch(() => undefined);
    }
    expect(heard?.change.case).toBe('upsert');
    before.close();

    const after = stream(ag.token);
    expect((await after.next(5000)).change.case).toBe('ready');
    const again = await publish(h, pt.token, event(h));
    const m = await after.next(1000);
    expect(m.change.case === 'upsert' && m.change.value.deliveryId).toBe(again.body.deliveryId);
    after.close();
  });
});
