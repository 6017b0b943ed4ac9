// REDIS_URL: one Redis server or a Redis Cluster. Pure (no client here): config.ts validates with it at
// start, infra/redis-client.ts builds the client from its result.

/** Where REDIS_URL points: one server (any URL ioredis takes) or a Redis Cluster, named by seed nodes. */
export type RedisTarget =
  | Readonly<{ kind: 'single'; url: string }>
  | Readonly<{ kind: 'cluster'; nodes: ReadonlyArray<Readonly<{ host: string; port: number }>>; username?: string; password?: string; tls: boolean }>;

const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\//i;

/**
 * `redis://…` / `rediss://…` is one server. `redis+cluster://[user:password@]host:port[,host:port…]`
 * (`rediss+cluster://` for TLS) is a Redis Cluster: one or more seed nodes (the client discovers the
 * rest), the credentials apply to every node, the port defaults to 6379, IPv6 as `[::1]:7000`; no
 * path or query (a cluster has only database 0). Messages never repeat the credentials.
 */
export function parseRedisUrl(raw: string): RedisTarget {
  const scheme = CLUSTER_SCHEME.exec(raw);
  if (!scheme) return { kind: 'single', url: raw };
  const form = 'must be redis+cluster://[user:password@]host:port[,host:port...]';
  const afterScheme = raw.slice(scheme[0].length);
  // The last @ ends the credentials (a password may hold an unencoded @; a host never does).
  const at = afterScheme.lastIndexOf('@');
  const hosts = afterScheme.slice(at + 1).replace(/\/$/, '');
  if (hosts === '' || /[/?#\s]/.test(hosts)) throw new Error(`${form} (no path, query or spaces)`);
  const nodes = hosts.split(',').map((node) => {
    let u: URL;
    try {
      u = new URL(`redis://${node}`);
    } catch {
      throw new Error(`${form}: bad node "${node}"`);
    }
    const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    if (host === '' || u.username !== '' || u.password !== '') throw new Error(`${form}: bad node "${node}"`);
    return Object.freeze({ host, port: u.port === '' ? 6379 : Number(u.port) });
  });
  let username: string | undefined;
  let password: string | undefined;
  if (at >= 0) {
    const userinfo = afterScheme.slice(0, at);
    const colon = userinfo.indexOf(':');
    try {
      username = decodeURIComponent(colon >= 0 ? userinfo.slice(0, colon) : userinfo) || undefined;
      password = colon >= 0 ? decodeURIComponent(userinfo.slice(colon + 1)) || undefined : undefined;
    } catch {
      throw new Error(`${form}: the credentials are not valid percent-encoding`);
    }
  }
  return Object.freeze({ kind: 'cluster', nodes: Object.freeze(nodes), username, password, tls: scheme[1]!.toLowerCase() === 'rediss' });
}
