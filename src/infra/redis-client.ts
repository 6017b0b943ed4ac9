// The Redis client of the rate-limit and idempotency stores: one server or a Redis Cluster (REDIS_URL,
// config.ts parseRedisUrl). Both fail fast when Redis is away, so the runner decides at once: the rate
// limit fails open, Idempotency-Key requests fail closed with 503 (README "Redis down").
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisTarget } from './redis-url.js';

export type RedisClient = Redis | Cluster;

/**
 * For the text of a key around its hash tag: `{` `}` `%` percent-encoded (one-to-one), so a key has
 * exactly one `{...}` and no caller-supplied text moves it to another Redis Cluster slot. Other text
 * is returned unchanged (the usual case costs one regex test).
 */
export function escapeBraces(s: string): string {
  return /[{}%]/.test(s) ? s.replace(/[{}%]/g, (c) => (c === '%' ? '%25' : c === '{' ? '%7B' : '%7D')) : s;
}

/** Per connection, for one server and for every cluster node alike. */
const CONNECTION: RedisOptions = { maxRetriesPerRequest: 1, connectTimeout: 2000 };

/**
 * Not connected yet (lazyConnect): the caller attaches its error listener, then connects.
 *
 * No offline queue: commands fail at once while Redis is unreachable. Auto-pipelining: the commands
 * of concurrent requests issued in one turn of the event loop go out in one write. The rate
 * limiter's per-turn script run is left out of it: it goes out in the turn it is made, not one turn
 * later. So is the inbox feed's PUBLISH (infra/inbox-feed/redis-inbox-feed.ts), which gathers a turn's
 * changes itself: through the auto-pipeline each one cost a Pipeline of its own (a CPU profile of the
 * publish bench put executeAutoPipeline and Pipeline.exec at 3.4 % of the service). On a cluster the scripts whose number of keys varies are left out too: ioredis would route
 * their pipeline by the first argument (the key count), not by the first key.
 */
export function createRedisClient(target: RedisTarget, keyPrefix = ''): RedisClient {
  if (target.kind === 'single') {
    return new Redis(target.url, {
      ...CONNECTION,
      // REDIS_KEY_PREFIX, before every key (hash tags included: a key's slot is unchanged by it).
      keyPrefix,
      enableOfflineQueue: false,
      lazyConnect: true,
      enableAutoPipelining: true,
      autoPipeliningIgnoredCommands: ['slidingLogBatch', 'publish'],
    });
  }
  return new Cluster(
    target.nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      keyPrefix,
      lazyConnect: true,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      autoPipeliningIgnoredCommands: ['slidingLogBatch', 'idemBegin', 'publish'],
      // ioredis retries a command whose node is gone, or that got CLUSTERDOWN, every 100 ms up to 16
      // times by default: 1.6 s added to every request of the affected tokens during an outage. No
      // retries: such a command fails at once like on one server. MOVED / ASK redirects (resharding,
      // a replica promoted) are still followed.
      retryDelayOnFailover: 0,
      retryDelayOnClusterDown: 0,
      // A restarted node is reached again through the MOVED answers of the others and the periodic
      // slot refresh, without waiting for the refresh (ioredis' default leaves it disconnected).
      clusterNodeRetryStrategy: (times) => Math.min(100 * times, 2000),
      redisOptions: { ...CONNECTION, username: target.username, password: target.password, tls: target.tls ? {} : undefined },
    },
  );
}

/**
 * Readiness: one server answers PING; a cluster has every slot served by a master this client
 * reaches, and each of those masters reports `cluster_state:ok` (a node that is down, or a cluster
 * that lost coverage, makes the keys of some callers unusable).
 */
export async function probeRedis(client: RedisClient): Promise<void> {
  if (!(client instanceof Cluster)) {
    await client.ping();
    return;
  }
  if (client.status !== 'ready') throw new Error(`cluster client ${client.status}`);
  const masters = client.nodes('master');
  if (masters.length === 0) throw new Error('no cluster master reachable');
  await Promise.all(
    masters.map(async (node) => {
      // A node being reconnected would hold the command in its queue: answer at once. (`wait`: not
      // connected yet, the command connects it.)
      if (node.status !== 'ready' && node.status !== 'wait') throw new Error(`cluster node ${node.options.host}:${node.options.port} ${node.status}`);
      const info = String(await node.cluster('INFO'));
      if (!info.includes('cluster_state:ok')) throw new Error(`cluster_state not ok at ${node.options.host}:${node.options.port}`);
    }),
  );
}
