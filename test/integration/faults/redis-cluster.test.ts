// REDIS_URL naming a Redis Cluster (`redis+cluster://host:port,...`, README "Configuration"): a private
// 3-master cluster started here, two service instances on it and on one PostgreSQL database. The
// limits, the request budget and Idempotency-Key behave as on one Redis; every key of a caller sits in
// one slot (its hash tag), different callers spread over the nodes; a node or the whole cluster down
// keeps the Redis-down rules (rate limit fails open, Idempotency-Key fails closed with 503).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/infra/clock.js';
import { withToken } from '../../helpers/agents.js';
import { createDatabase, event, http, newPersonalToken, newUser, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { privateRedisCluster, redisCli, waitFor, type PrivateRedisCluster } from '../../helpers/redis-server.js';
import { mcp, rpc } from '../mcp/rpc.js';

let cluster: PrivateRedisCluster;
let db: Awaited<ReturnType<typeof createDatabase>>;
let a: Harness;
let b: Harness;
beforeAll(async () => {
  cluster = await privateRedisCluster(3);
  db = await createDatabase();
  const clock = new ManualClock();
  // A names one seed node (it discovers the others), B all three.
  // No key prefix: the test reads the stores' keys as they are named (a private cluster, nothing shared).
  a = await startHarness({ databaseUrl: db.url, clock, redisUrl: cluster.url(1), env: { REDIS_KEY_PREFIX: '' } });
  b = await startHarness({ databaseUrl: db.url, clock, redisUrl: cluster.url(), env: { REDIS_KEY_PREFIX: '' } });
}, 60_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  await db?.drop();
  await cluster?.dispose();
});

const slotOf = async (key: string) => Number(await redisCli(cluster.ports[0]!, ['cluster', 'keyslot', key]));

/** Every key of the cluster and the index of the node that holds it. */
async function keysByNode(): Promise<Map<string, number>> {
  const where = new Map<string, number>();
  for (const [i, port] of cluster.ports.entries()) {
    for (const k of (await redisCli(port, ['--raw', 'keys', '*'])).split('\n').filter(Boolean)) where.set(k, i);
  }
  return where;
}

/** The index of the node serving `slot` (CLUSTER NODES: `<id> <ip:port@bus> <flags> ... <link> <slot ranges>`). */
async function nodeOfSlot(slot: number): Promise<number> {
  const running = cluster.ports.find((_, i) => i !== 0) ?? cluster.ports[0]!;
  for (const line of (await redisCli(running, ['cluster', 'nodes'])).split('\n').filter(Boolean)) {
    const f = line.split(' ');
    if (!f[2]!.includes('master')) continue;
    const port = Number(f[1]!.split('@')[0]!.split(':').at(-1));
    for (const range of f.slice(8)) {
      const [lo, hi] = range.split('-').map(Number);
      if (slot >= lo! && slot <= (hi ?? lo)!) return cluster.ports.indexOf(port);
    }
  }
  throw new Error(`slot ${slot} not served`);
}

describe('a service on a Redis Cluster', () => {
  it('connects as a cluster client, and readiness checks the cluster', async () => {
    expect(a.svc.deps.redis?.isCluster).toBe(true);
    expect(b.svc.deps.redis?.isCluster).toBe(true);
    const ready = await http(a, 'GET', '/api/v1/ready');
    expect(ready.status, ready.text).toBe(200);
    expect(ready.body.checks).toMatchObject({ redis: 'ok' });
  });

  it('the 60/min limit is exact across two instances: alternating requests, the 61st is 429 on either', async () => {
    const t = await newPersonalToken(a);
    for (let i = 0; i < 60; i++) {
      const r = await publish(i % 2 === 0 ? a : b, t.token, event(a));
      expect(r.status, r.text).toBe(202);
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(59 - i));
    }
    const onA = await publish(a, t.token, event(a));
    const onB = await publish(b, t.token, event(a));
    expect([onA.status, onB.status]).toEqual([429, 429]);
    expect(onB.body.code).toBe('rate_limited');
    expect(Number(onB.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('the request budget has its own window in the same slot: reads count 600/min, not the publish budget', async () => {
    const t = await newPersonalToken(a);
    const pub = await publish(a, t.token, event(a));
    expect(pub.headers.get('x-ratelimit-remaining')).toBe('59');
    for (const [i, h] of [a, b, a].entries()) {
      const r = await http(h, 'GET', `/api/v1/events/${pub.body.deliveryId}`, { token: t.token });
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe('600');
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(599 - i));
    }
    expect((await publish(b, t.token, event(a))).headers.get('x-ratelimit-remaining')).toBe('58');
    const [publishSlot, requestSlot] = await Promise.all([slotOf(`rl:{tok:${t.tokenId}}`), slotOf(`rl:{tok:${t.tokenId}}:req`)]);
    expect(requestSlot).toBe(publishSlot);
  });

  it('Idempotency-Key: replayed on the other instance, a different body is a conflict, braces in the key are harmless', async () => {
    const t = await newPersonalToken(a);
    for (const k of [`cluster-${Math.random().toString(36).slice(2)}`, 'a}{b}c{']) {
      const ev = event(a);
      const ra = await publish(a, t.token, ev, { 'idempotency-key': k });
      const rb = await publish(b, t.token, ev, { 'idempotency-key': k });
      expect([ra.status, rb.status], rb.text).toEqual([202, 202]);
      expect(ra.headers.get('idempotent-replayed')).toBeNull();
      expect(rb.headers.get('idempotent-replayed')).toBe('true');
      expect(rb.text).toBe(ra.text);
      const conflict = await publish(b, t.token, event(a), { 'idempotency-key': k });
      expect(conflict.status).toBe(409);
      expect(conflict.body.code).toBe('idempotency_key_reused');
      const rows = await a.svc.deps.orm.em
        .getConnection()
        .execute(`select fire_count from deliveries where token_id = ? and event_id = ?`, [t.tokenId, ev.event_id]);
      expect(rows).toEqual([{ fire_count: 1 }]);
    }
  });

  it("an agent's minute and day windows (one script, two keys) count together", async () => {
    const agent = await withToken(a, await newUser(a));
    for (const [i, h] of [a, b].entries()) {
      const r = await mcp(h, rpc('tools/list'), { token: agent.token });
      expect(r.status, r.text).toBe(200);
      // Without a shared hash tag the script would fail (CROSSSLOT) and the limit fail open: no headers.
      expect(r.headers.get('x-ratelimit-limit')).toBe('60');
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(59 - i));
    }
    expect(await slotOf(`rl:{tok:${agent.tokenId}}:day`)).toBe(await slotOf(`rl:{tok:${agent.tokenId}}`));
  });

  it('concurrent callers in one turn each get their decision (the per-turn script run is split per slot)', async () => {
    const tokens = await Promise.all(Array.from({ length: 24 }, () => newPersonalToken(a)));
    const rs = await Promise.all(tokens.map((t) => publish(a, t.token, event(a))));
    for (const r of rs) {
      expect(r.status, r.text).toBe(202);
      expect(r.headers.get('x-ratelimit-remaining')).toBe('59');
    }
  });

  it("each caller's keys sit in one slot, on the node serving it; different callers spread over the nodes", async () => {
    const tokens: TestToken[] = await Promise.all(Array.from({ length: 12 }, () => newPersonalToken(a)));
    for (const t of tokens) {
      const pub = await publish(a, t.token, event(a), { 'idempotency-key': `spread-{${t.tokenId}}` });
      expect(pub.status).toBe(202);
      expect((await http(b, 'GET', `/api/v1/events/${pub.body.deliveryId}`, { token: t.token })).status).toBe(200);
    }
    const where = await keysByNode();
    const nodesUsed = new Set<number>();
    for (const t of tokens) {
      const own = [...where.keys()].filter((k) => k.includes(t.tokenId));
      expect(own.filter((k) => k.startsWith('rl:')).sort()).toEqual([`rl:{tok:${t.tokenId}}`, `rl:{tok:${t.tokenId}}:req`]);
      expect(own.filter((k) => k.startsWith('idem:'))).toHaveLength(1);
      // One hash tag per key, whatever the Idempotency-Key holds.
      for (const k of own) expect(k.match(/[{}]/g)).toEqual(['{', '}']);
      const slots = new Set(await Promise.all(own.filter((k) => k.startsWith('rl:')).map(slotOf)));
      expect(slots.size).toBe(1);
      const slot = [...slots][0]!;
      const node = await nodeOfSlot(slot);
      for (const k of own.filter((k) => k.startsWith('rl:'))) expect(where.get(k)).toBe(node);
      // The Idempotency-Key record shares the caller's slot.
      const idem = own.find((k) => k.startsWith('idem:'))!;
      expect(await slotOf(idem)).toBe(slot);
      expect(where.get(idem)).toBe(node);
      nodesUsed.add(node);
    }
    // 12 random token ids all on one of 3 nodes: probability 3^-11.
    expect(nodesUsed.size).toBeGreaterThan(1);
    const tokenSlots = new Set(await Promise.all(tokens.map((t) => slotOf(`rl:{tok:${t.tokenId}}`))));
    expect(tokenSlots.size).toBeGreaterThan(1);
  });
});

describe('a cluster node or the whole cluster down', () => {
  it('keys on a node that is down: the rate limit fails open, Idempotency-Key fails closed; other nodes serve; back when it returns', async () => {
    // One token per node, by where its publish window lives.
    const byNode = new Map<number, TestToken>();
    while (byNode.size < cluster.ports.length) {
      const t = await newPersonalToken(a);
      const node = await nodeOfSlot(await slotOf(`rl:{tok:${t.tokenId}}`));
      if (!byNode.has(node)) byNode.set(node, t);
    }
    const down = byNode.get(0)!;
    const up = byNode.get(1)!;
    await cluster.stop(0);

    const started = Date.now();
    const open = await publish(a, down.token, event(a));
    expect(open.status, open.text).toBe(202);
    expect(open.headers.get('x-ratelimit-limit')).toBeNull();
    const keyed = event(a);
    const closed = await publish(b, down.token, keyed, { 'idempotency-key': 'node-down-1' });
    expect(closed.status).toBe(503);
    expect(closed.headers.get('retry-after')).toBe('1');
    expect(closed.body).toMatchObject({ status: 503, code: 'idempotency_unavailable' });
    // Failed at once, not after ioredis' retries on a missing node.
    expect(Date.now() - started).toBeLessThan(1_500);
    // A token whose keys live on a running node is served as usual.
    const served = await publish(a, up.token, event(a), { 'idempotency-key': 'node-up-1' });
    expect(served.status).toBe(202);
    expect(served.headers.get('x-ratelimit-limit')).toBe('60');
    // Readiness answers from a check at most 1 s old.
    await waitFor(async () => (await http(a, 'GET', '/api/v1/ready')).status === 503, 5_000, 200);
    expect((await http(a, 'GET', '/api/v1/ready')).body.failing).toEqual(['redis']);

    await cluster.start(0);
    await cluster.waitOk();
    let again = await publish(b, down.token, keyed, { 'idempotency-key': 'node-down-1' });
    await waitFor(
      async () => {
        if (again.status !== 503) return true;
        again = await publish(b, down.token, keyed, { 'idempotency-key': 'node-down-1' });
        return again.status !== 503;
      },
      10_000,
      100,
    );
    expect(again.status, again.text).toBe(202);
    expect(again.headers.get('x-ratelimit-limit')).toBe('60');
    const replay = await publish(a, down.token, keyed, { 'idempotency-key': 'node-down-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('the whole cluster down: publishing fails open, keyed requests fail closed, readiness names redis', async () => {
    const t = await newPersonalToken(a);
    for (const i of cluster.ports.keys()) await cluster.stop(i);
    const open = await publish(a, t.token, event(a));
    expect(open.status, open.text).toBe(202);
    expect(open.headers.get('x-ratelimit-limit')).toBeNull();
    const closed = await publish(b, t.token, event(a), { 'idempotency-key': 'all-down-1' });
    expect(closed.status).toBe(503);
    expect(closed.body.code).toBe('idempotency_unavailable');
    await waitFor(async () => (await http(b, 'GET', '/api/v1/ready')).status === 503, 5_000, 200);
    const notReady = await http(b, 'GET', '/api/v1/ready');
    expect(notReady.body.failing).toEqual(['redis']);
  });
});
