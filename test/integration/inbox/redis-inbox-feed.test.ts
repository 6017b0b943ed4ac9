// The Redis inbox feed's publishing side against the real Redis (infra/inbox-feed/redis-inbox-feed.ts):
// after a quiet spell a change goes out at the end of its turn; changes made within the interval
// of the last PUBLISH wait for it and go out together, in ONE message (each PUBLISH is a write that
// wakes Redis); close() sends what is still waiting; every line decodes to what was changed; watchers
// opened together all subscribe, and an access change reaches them.
// Other test files publish on the same channel at the same time: only lines of this file's own
// random users are counted.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeLine, encodeChanges, INBOX_FEED_CHANNEL, RedisInboxFeed } from '../../../src/infra/inbox-feed/redis-inbox-feed.js';
import { REDIS_URL } from '../../helpers/harness.js';
import { waitFor } from '../../helpers/redis-server.js';

let listener: Redis;
/** Messages seen on the channel that carry at least one line of `users`, as their lines of those users. */
const received: string[][] = [];
const users = new Set<string>();

beforeAll(async () => {
  listener = new Redis(REDIS_URL);
  listener.on('message', (_channel: string, message: string) => {
    const mine = message.split('\n').filter((line) => users.has(line.slice(0, 36)));
    if (mine.length > 0) received.push(mine);
  });
  await listener.subscribe(INBOX_FEED_CHANNEL);
});
afterAll(() => listener?.disconnect());

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

describe('RedisInboxFeed publishing', () => {
  it('sends a change after a quiet spell at once, and the changes within the interval together in one PUBLISH', async () => {
    const redis = new Redis(REDIS_URL);
    // An interval far longer than the test: what goes out before close() went out on the leading edge.
    const feed = new RedisInboxFeed(redis, { flushIntervalMs: 600_000 });
    try {
      const first = randomUUID();
      const firstDelivery = randomUUID();
      users.add(first);
      const before = received.length;
      feed.changed(first, { deliveryIds: [firstDelivery] });
      await waitFor(() => received.length > before);
      expect(received.slice(before)).toEqual([[`${first} d${firstDelivery}`]]);
      expect(feed.publishes).toBe(1);

      // 40 changes over 40 turns of the event loop, within the interval: none is sent yet.
      const later = Array.from({ length: 40 }, () => ({ user: randomUUID(), delivery: randomUUID() }));
      for (const c of later) {
        users.add(c.user);
        feed.changed(c.user, { deliveryIds: [c.delivery] });
        await nextTurn();
      }
      expect(feed.publishes).toBe(1);

      const mark = received.length;
      feed.close();
      expect(feed.publishes).toBe(2);
      await waitFor(() => received.length > mark);
      expect(received.slice(mark)).toEqual([later.map((c) => `${c.user} d${c.delivery}`)]);
    } finally {
      feed.close();
      redis.disconnect();
    }
  });

  it('sends at the end of the turn again once the interval has passed', async () => {
    const redis = new Redis(REDIS_URL);
    const feed = new RedisInboxFeed(redis, { flushIntervalMs: 0 });
    try {
      const u = randomUUID();
      users.add(u);
      const before = received.length;
      // Two changes in one turn: one PUBLISH; a change in a later turn: its own.
      feed.changed(u, { deliveryIds: [randomUUID()] });
      feed.changed(u, { notificationIds: [randomUUID()] });
      await nextTurn();
      await nextTurn();
      feed.changed(u, { deliveryIds: [randomUUID()] });
      await nextTurn();
      expect(feed.publishes).toBe(2);
      await waitFor(() => received.length >= before + 2);
      expect(received.slice(before).map((m) => m.length)).toEqual([2, 1]);
    } finally {
      feed.close();
      redis.disconnect();
    }
  });

  it('watchers that open together on a fresh process all subscribe (the second waits for the first SUBSCRIBE); access changes reach them', async () => {
    const redis = new Redis(REDIS_URL);
    const feed = new RedisInboxFeed(redis);
    const [u1, u2] = [randomUUID(), randomUUID()];
    const s1 = feed.subscribe(u1);
    const s2 = feed.subscribe(u2);
    const s3 = feed.subscribe(u1);
    try {
      await Promise.all([s1.ready, s2.ready, s3.ready]);
      const it1 = s1[Symbol.asyncIterator]();
      const it2 = s2[Symbol.asyncIterator]();
      const d = randomUUID();
      feed.changed(u1, { access: true });
      feed.changed(u2, { deliveryIds: [d] });
      expect((await it1.next()).value).toEqual({ notificationIds: [], deliveryIds: [], access: true });
      expect((await it2.next()).value).toEqual({ notificationIds: [], deliveryIds: [d], access: false });
    } finally {
      feed.close();
      redis.disconnect();
    }
  });

  it('encodes and decodes every kind of change; lines it did not write are ignored', () => {
    const u = randomUUID();
    const ids = Array.from({ length: 450 }, () => randomUUID());
    const lines = encodeChanges(u, { notificationIds: ids.slice(0, 250), deliveryIds: ids.slice(250) });
    // 200 ids per line at most.
    expect(lines).toHaveLength(3);
    const decoded = lines.map(decodeLine);
    expect(decoded.flatMap((d) => d?.changes.notificationIds ?? [])).toEqual(ids.slice(0, 250));
    expect(decoded.flatMap((d) => d?.changes.deliveryIds ?? [])).toEqual(ids.slice(250));
    expect(decoded.every((d) => d?.userId === u)).toBe(true);
    expect(encodeChanges(u, { access: true })).toEqual([`${u} a`]);
    expect(decodeLine(`${u} a`)).toEqual({ userId: u, changes: { access: true } });
    for (const junk of [
      '',
      'x',
      `${u} q${randomUUID()}`,
      `${u} d`,
      `${u} dnot-a-uuid`,
      `${u} a${randomUUID()}`,
      `not-a-user-id-at-all-but-36-chars-x d${randomUUID()}`,
    ]) {
      expect(decodeLine(junk)).toBeUndefined();
    }
  });
});
