// Outgoing POSTs of nudges (chat webhooks, push services) under the egress client's target rules
// (domain/egress-policy.rules.ts), over pooled keep-alive connections: the worker sends thousands a
// second to a few hosts, and a fresh TCP + TLS connection per request costs more than the request.
// Pooling keeps the guarantee: the address check runs in the socket's `lookup` hook, on every NEW
// connection, so a pooled socket only ever connected to a checked address and a rebinding DNS answer
// reaches only a new (checked) socket. IP literals never reach `lookup`: checked before the request.
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { allowHostSet, egressTarget, isAllowedAnswer } from '../../domain/egress-policy.rules.js';
import { result, type EgressClient, type EgressResponse } from '../http-egress/egress-client.js';
import { tracedPost, type Tracer } from '../tracing/tracing.js';

export interface NudgeEgressOptions {
  timeoutMs: number;
  /** Hosts reachable over plain http and on private/loopback addresses (test receivers). */
  allowHosts: readonly string[];
  /** Open connections per host (both protocols). */
  maxSocketsPerHost?: number;
  /** deps.tracer: a client span per send while tracing is on. */
  tracer?: Tracer | null;
}

class BlockedTarget extends Error {
  readonly code = 'EFLUXDESK_BLOCKED';
}

/** Resolves like the OS, refuses the whole answer when any address is not allowed, connects to the first. */
function checkedLookup(allowPrivate: boolean): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    dns.lookup(hostname, { all: true, order: 'verbatim' }, (err, addresses) => {
      if (err) return callback(err);
      if (addresses.length === 0) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }));
      if (!isAllowedAnswer(addresses, allowPrivate)) return callback(new BlockedTarget('target address not allowed'));
      const first = addresses[0]!;
      if (options?.all) callback(null, [first]);
      else callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}

export interface ClosableEgressClient extends EgressClient {
  close(): Promise<void>;
}

const isBlocked = (err: unknown): boolean => {
  for (let e = err as { code?: string; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e instanceof BlockedTarget || e.code === 'EFLUXDESK_BLOCKED') return true;
  }
  return false;
};

export function createNudgeEgressClient(opts: NudgeEgressOptions): ClosableEgressClient {
  const allowHosts = allowHostSet(opts.allowHosts);
  const tracer = opts.tracer ?? null;
  // undici (Node's own fetch engine) instead of node:http: less CPU per POST (a client and a local
  // receiver in one process: about 170 µs per POST with node:http, 125-140 µs with undici).
  // One pool per trust level, so a socket opened under the allowlisted lookup never serves a
  // host checked under the strict one. `connect.lookup` is handed to net/tls.connect for every
  // new socket; undici sets SNI from the URL's host name (never from an IP literal).
  const agent = (allowPrivate: boolean) =>
    new Agent({
      connections: opts.maxSocketsPerHost ?? 32,
      keepAliveTimeout: 4_000,
      // A receiver's `Keep-Alive: timeout=N` is honoured up to N - 0.5 s (undici's default margin
      // of 2 s would never reuse a connection to a server that keeps idle ones for 1-2 s).
      keepAliveTimeoutThreshold: 500,
      connect: { lookup: checkedLookup(allowPrivate), timeout: opts.timeoutMs },
    });
  const agents = { open: agent(false), allowlisted: agent(true) };

  const post = async (url: string, body: Uint8Array, headers: Record<string, string>): Promise<EgressResponse> => {
    // Scheme, allowlist and IP-literal rules (IP literals never reach `lookup`): the shared policy.
    const checked = egressTarget(url, allowHosts);
    if (!checked) return result(0, 'blocked_target');
    const { url: target, allowlisted } = checked;

    // One deadline up to the end of the response (a receiver that stalls mid-body is cut too).
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), opts.timeoutMs);
    try {
      // undici's request never follows redirects: a 3xx is the receiver's answer.
      const res = await request(target, {
        method: 'POST',
        headers,
        body,
        dispatcher: allowlisted ? agents.allowlisted : agents.open,
        signal: abort.signal,
      });
      await res.body.dump({ signal: abort.signal, limit: 64 * 1024 });
      if (abort.signal.aborted) return result(0, 'timeout');
      return result(res.statusCode);
    } catch (err) {
      if (abort.signal.aborted) return result(0, 'timeout');
      return result(0, isBlocked(err) ? 'blocked_target' : 'network_error');
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    async close() {
      await Promise.all([agents.open.destroy(), agents.allowlisted.destroy()]);
    },
    post(url, body, headers) {
      // A client span per send; no traceparent to chat and push services (third parties).
      return tracer === null ? post(url, body, headers) : tracedPost(tracer, url, headers, false, (h) => post(url, body, h));
    },
  };
}
