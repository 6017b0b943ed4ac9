// Crash between commit and dispatch (transactional outbox, first attempt sent from it under a lease;
// pg-boss for retries): a service process is killed with SIGKILL while nudges are committed but not
// sent (unclaimed in the outbox); a new process on the same database sends each of them exactly
// once. A nudge whose request was already in flight when the process died (claimed, lease running)
// is sent again when its lease ends (at least once) with the same idempotency id, which is what a
// receiver dedupes on.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createDeps, type Deps } from '../../../src/deps.js';
import { runOperator } from '../../../src/transports/cli/operator-socket.js';
import { createDatabase, event, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';
import { kill9, killChildren, startChild } from '../../helpers/child-service.js';
import { browserSubscription, startReceiver, until, type Receiver } from './receiver.js';

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  killChildren();
  for (const f of cleanups.splice(0).reverse()) await f().catch(() => undefined);
});

interface Sender {
  token: string;
  userId: string;
  chatPath: string;
  pushPath: string;
}

/** N users with a personal token, a chat destination and a push subscription (written directly). */
async function senders(databaseUrl: string, n: number, tag: string): Promise<Sender[]> {
  const setup: Deps = await createDeps(loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', WORKER: 'off' }, 'test'), { role: 'cli' });
  try {
    const out: Sender[] = [];
    for (let i = 0; i < n; i++) {
      const email = uniqueEmail(tag);
      const u = await runOperator(setup, 'users.create', { email, name: `Crash ${i}` });
      if (!u.ok) throw new Error(JSON.stringify(u.error));
      const t = await runOperator(setup, 'tokens.create_personal', { email, label: 'crash', daily_limit: 1000 });
      if (!t.ok) throw new Error(JSON.stringify(t.error));
      const userId = (u.output as { userId: string }).userId;
      const s: Sender = { token: (t.output as { token: string }).token, userId, chatPath: `/chat/${tag}-${i}`, pushPath: `/push/${tag}-${i}` };
      const b = browserSubscription(`${rx.url}${s.pushPath}`);
      const conn = setup.orm.em.fork().getConnection();
      await conn.execute(
        `insert into nudge_preferences (user_id, push_severities, chat_enabled, chat_url, chat_style, updated_at) values (?, '{critical,warn}', true, ?, 'slack', now())`,
        [userId, `${rx.url}${s.chatPath}`],
      );
      await conn.execute(`insert into push_subscriptions (id, user_id, endpoint, p256dh, auth, created_at) values (gen_random_uuid(), ?, ?, ?, ?, now())`, [
        userId,
        b.endpoint,
        b.p256dh,
        b.auth,
      ]);
      out.push(s);
    }
    return out;
  } finally {
    await setup.close();
  }
}

async function publishTo(baseUrl: string, token: string, h: Pick<Harness, 'clock'>): Promise<string> {
  const res = await fetch(`${baseUrl}/api/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(event(h as Harness, { severity: 'critical' })),
  });
  const body = (await res.json()) as { deliveryId: string; pushed: boolean };
  expect(res.status).toBe(202);
  expect(body.pushed).toBe(true);
  return body.deliveryId;
}

const hitsByKey = (prefix: string) => {
  const m = new Map<string, number>();
  for (const hit of rx.hits)
    if (hit.path.startsWith(prefix)) m.set(String(hit.headers['idempotency-key']), (m.get(String(hit.headers['idempotency-key'])) ?? 0) + 1);
  return m;
};

async function drained(h: Harness): Promise<boolean> {
  const c = await h.svc.nudges!.counts();
  return c.outbox === 0 && c.queued === 0 && c.active === 0;
}

const clockLike = { clock: { now: () => new Date() } } as unknown as Harness;

describe('kill -9 between commit and dispatch', () => {
  it('nudges still in the outbox are sent exactly once by the next process', async () => {
    const db = await createDatabase();
    cleanups.push(() => db.drop());
    const tag = `outbox${Date.now().toString(36)}`;
    const people = await senders(db.url, 5, tag);
    // A accepts events but dispatches nothing (its worker is off): every nudge is committed and pending.
    const a = await startChild(db.url, { WORKER: 'off' });
    const deliveries: string[] = [];
    for (let round = 0; round < 4; round++) for (const p of people) deliveries.push(await publishTo(a.baseUrl, p.token, clockLike));
    await kill9(a);
    expect(rx.hits.filter((x) => x.path.includes(tag))).toHaveLength(0);

    const b = await startHarness({
      databaseUrl: db.url,
      env: { NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1', PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1', NUDGE_RELAY_INTERVAL_MS: '50' },
    });
    cleanups.push(() => b.close());
    await until('all nudges sent', async () => hitsByKey(`/chat/${tag}`).size === 20 && hitsByKey(`/push/${tag}`).size === 20 && (await drained(b)), 30_000);
    for (const d of deliveries) {
      expect(hitsByKey(`/chat/${tag}`).get(`${d}:chat`)).toBe(1);
      expect(hitsByKey(`/push/${tag}`).get(`${d}:push`)).toBe(1);
    }
  });

  it('unclaimed nudges are sent exactly once; the one in flight again after its lease, with the same idempotency id', async () => {
    const db = await createDatabase();
    cleanups.push(() => db.drop());
    const tag = `queued${Date.now().toString(36)}`;
    const people = await senders(db.url, 5, tag);
    // Receivers hang: A's single dispatch loop claims one nudge (a batch of one) and waits on it;
    // every other nudge stays unclaimed in the outbox.
    rx.behave(`/chat/${tag}`, { delayMs: 60_000 });
    rx.behave(`/push/${tag}`, { delayMs: 60_000 });
    const a = await startChild(db.url, {
      NUDGE_BATCH_SIZE: '1',
      NUDGE_CONCURRENCY: '1',
      NUDGE_RELAY_INTERVAL_MS: '50',
      NUDGE_JOB_EXPIRE_S: '3',
      NUDGE_SEND_TIMEOUT_MS: '30000',
    });
    const deliveries: string[] = [];
    for (let round = 0; round < 4; round++) for (const p of people) deliveries.push(await publishTo(a.baseUrl, p.token, clockLike));
    const pg = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', WORKER: 'off' }, 'test'), { role: 'cli' });
    cleanups.push(() => pg.close());
    const q = (s: string) => pg.orm.em.fork().getConnection().execute(s) as Promise<any[]>;
    await until('all committed, one in flight', async () => {
      const [o] = await q(`select count(*)::int as n, count(lease_until)::int as claimed from nudge_outbox`);
      return o.n === 40 && o.claimed === 1 && rx.hits.filter((x) => x.path.includes(tag)).length >= 1;
    });
    const inFlight = new Set(rx.hits.filter((x) => x.path.includes(tag)).map((x) => String(x.headers['idempotency-key'])));
    await kill9(a);

    rx.behave(`/chat/${tag}`, {});
    rx.behave(`/push/${tag}`, {});
    const b = await startHarness({
      databaseUrl: db.url,
      env: {
        NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1',
        PUSH_ENDPOINT_ALLOW_HOSTS: '127.0.0.1',
        NUDGE_RELAY_INTERVAL_MS: '50',
        NUDGE_JOB_EXPIRE_S: '3',
        NUDGE_RETRY_DELAY_S: '1',
      },
    });
    cleanups.push(() => b.close());
    // The nudge A had claimed is sent again once its lease (NUDGE_JOB_EXPIRE_S) has ended.
    await until('all nudges sent', async () => hitsByKey(`/chat/${tag}`).size === 20 && hitsByKey(`/push/${tag}`).size === 20 && (await drained(b)), 45_000);
    const all = new Map([...hitsByKey(`/chat/${tag}`), ...hitsByKey(`/push/${tag}`)]);
    expect(all.size).toBe(40);
    for (const d of deliveries) {
      for (const ch of ['chat', 'push']) {
        const key = `${d}:${ch}`;
        expect(all.get(key)).toBe(inFlight.has(key) ? 2 : 1);
      }
    }
    expect(inFlight.size).toBeGreaterThanOrEqual(1);
    expect(inFlight.size).toBeLessThanOrEqual(1);
  });
});
