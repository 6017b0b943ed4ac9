// Outgoing POSTs of nudges (chat webhooks, push services) with the SAME target rules as the
// SSRF-guarded egress client (src/infra/http-egress: https only unless allowlisted; every resolved
// address must be public per its address policy; no redirects; one deadline), but over pooled
// keep-alive connections. The worker sends thousands of nudges a second to a handful of hosts;
// a fresh TCP (+TLS) connection per request, as the action-callback client makes, costs more
// than the request itself.
//
// Why pooling keeps the guarantee: the address check runs in the socket's `lookup` hook, i.e. on
// every NEW connection, and a pooled socket is only ever one that connected to a checked address.
// A later DNS answer (rebinding) can never redirect an existing socket; a new socket is checked
// again. IP-literal hosts never reach `lookup` (Node connects directly), so they are checked
// before the request.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isAllowedAddress } from '../http-egress/address-policy.js';
import type { EgressClient, EgressError, EgressResponse } from '../http-egress/egress-client.js';

export interface NudgeEgressOptions {
  timeoutMs: number;
  /** Hosts reachable over plain http and on private/loopback addresses (test receivers). */
  allowHosts: readonly string[];
  /** Open connections per host (both protocols). */
  maxSocketsPerHost?: number;
}

const normalizeHost = (h: string) => h.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
const result = (status: number, error?: EgressError): EgressResponse => (error ? { status: 0, ok: false, error } : { status, ok: status >= 200 && status < 300 });

class BlockedTarget extends Error {
  readonly code = 'EFLUXDESK_BLOCKED';
}

/** Resolves like the OS, refuses the whole answer when any address is not allowed, connects to the first. */
function checkedLookup(allowPrivate: boolean): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    dns.lookup(hostname, { all: true, order: 'verbatim' }, (err, addresses) => {
      if (err) return callback(err);
      if (addresses.length === 0) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }));
      if (!addresses.every((a) => isAllowedAddress(a.address, allowPrivate))) return callback(new BlockedTarget('target address not allowed'));
      const first = addresses[0]!;
      if (options?.all) callback(null, [first]);
      else callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}

export interface ClosableEgressClient extends EgressClient {
  close(): void;
}

export function createNudgeEgressClient(opts: NudgeEgressOptions): ClosableEgressClient {
  const allowHosts = opts.allowHosts.map(normalizeHost);
  const agentOpts = { keepAlive: true, keepAliveMsecs: 1000, maxSockets: opts.maxSocketsPerHost ?? 32, maxFreeSockets: opts.maxSocketsPerHost ?? 32, scheduling: 'lifo' as const };
  const agents = { http: new http.Agent(agentOpts), https: new https.Agent(agentOpts) };
  const lookups = { open: checkedLookup(false), allowlisted: checkedLookup(true) };

  return {
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
    post(url, body, headers) {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return Promise.resolve(result(0, 'blocked_target'));
      }
      const host = normalizeHost(target.hostname);
      const allowlisted = allowHosts.includes(host);
      const isHttps = target.protocol === 'https:';
      if (!(isHttps || (target.protocol === 'http:' && allowlisted))) return Promise.resolve(result(0, 'blocked_target'));
      if (isIP(host) !== 0 && !isAllowedAddress(host, allowlisted)) return Promise.resolve(result(0, 'blocked_target'));

      return new Promise<EgressResponse>((resolve) => {
        let settled = false;
        const settle = (r: EgressResponse) => {
          if (!settled) {
            settled = true;
            clearTimeout(timer);
            resolve(r);
          }
        };
        const req = (isHttps ? https : http).request({
          method: 'POST',
          hostname: host,
          port: target.port || (isHttps ? 443 : 80),
          path: `${target.pathname}${target.search}`,
          headers: { ...headers, 'content-length': String(body.byteLength) },
          agent: isHttps ? agents.https : agents.http,
          lookup: allowlisted ? lookups.allowlisted : lookups.open,
          ...(isHttps && isIP(host) === 0 ? { servername: host } : {}),
        });
        // One deadline up to the end of the response (a receiver that stalls mid-body is cut too).
        const timer = setTimeout(() => {
          settle(result(0, 'timeout'));
          req.destroy();
        }, opts.timeoutMs);
        req.on('response', (res) => {
          const status = res.statusCode ?? 0;
          res.on('end', () => settle(result(status)));
          res.on('error', () => settle(result(status)));
          res.resume();
        });
        req.on('error', (err) => settle(result(0, err instanceof BlockedTarget || (err as { code?: string }).code === 'EFLUXDESK_BLOCKED' ? 'blocked_target' : 'network_error')));
        req.end(body);
      });
    },
  };
}
