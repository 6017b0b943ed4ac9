// Outgoing HTTP POSTs to user-controlled URLs (webhook action callbacks, SPEC "Action callback
// (outgoing)"), guarded against SSRF by the one address policy (domain/egress-policy.rules.ts):
// https only unless allowlisted; the host resolved once and refused when ANY address is not public;
// the socket pinned to that checked address (`lookup` hook; Host and TLS keep the name), so a
// rebinding answer is never used; no redirects; one deadline for DNS, connect, TLS and headers; the
// body drained only up to MAX_DRAINED_RESPONSE_BYTES. A failure is a value ({status: 0, error}).
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { allowHostSet, egressTarget, isAllowedAnswer } from '../../domain/egress-policy.rules.js';
import { tracedPost, type Tracer } from '../tracing/tracing.js';

export const DEFAULT_EGRESS_TIMEOUT_MS = 5_000;

/** Body bytes read (and discarded) after the status, enough for a short error page; then the socket is closed. */
export const MAX_DRAINED_RESPONSE_BYTES = 64 * 1024;

export type EgressError = 'timeout' | 'blocked_target' | 'network_error';

export interface EgressResponse {
  /** The receiver's HTTP status; 0 when none was received. */
  status: number;
  /** status is 2xx. */
  ok: boolean;
  error?: EgressError;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface EgressOptions {
  /** Deadline for the whole exchange up to the response headers. Default: DEFAULT_EGRESS_TIMEOUT_MS (5 s). */
  timeoutMs?: number;
  /**
   * Hostnames or IP literals (as written in the URL) that may be reached over plain http and may
   * resolve to private or loopback addresses (never metadata, multicast or unspecified ones).
   * Default: none (strict). The action callbacks' client gets EGRESS_ALLOW_HOSTS (src/deps.ts).
   */
  allowHosts?: readonly string[];
  /** DNS resolution; default `dns.lookup(host, {all: true})` (what the OS resolver answers). */
  resolve?: Resolver;
  /** deps.tracer: a client span per callback while tracing is on. */
  tracer?: Tracer | null;
}

export interface EgressClient {
  /** POSTs `body` as is (raw bytes; the caller signs exactly these) to `url`. */
  post(url: string, body: Uint8Array, headers: Record<string, string>): Promise<EgressResponse>;
}

const systemResolver: Resolver = async (hostname) => dns.promises.lookup(hostname, { all: true, order: 'verbatim' });

/** A receiver's answer, or a failure without one (status 0). */
export const result = (status: number, error?: EgressError): EgressResponse =>
  error ? { status: 0, ok: false, error } : { status, ok: status >= 200 && status < 300 };

class TimeoutError extends Error {}

export function createEgressClient(opts: EgressOptions = {}): EgressClient {
  const allowHosts = allowHostSet(opts.allowHosts ?? []);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_EGRESS_TIMEOUT_MS;
  const resolve = opts.resolve ?? systemResolver;
  const tracer = opts.tracer ?? null;
  const post = async (url: string, body: Uint8Array, headers: Record<string, string>): Promise<EgressResponse> => {
    const deadline = Date.now() + timeoutMs;

    // Scheme, allowlist and IP-literal rules: the policy shared with the nudge client.
    const checked = egressTarget(url, allowHosts);
    if (!checked) return result(0, 'blocked_target');
    const { url: target, host, allowlisted, literal } = checked;

    let addresses: ResolvedAddress[];
    if (literal !== 0) addresses = [{ address: host, family: literal }];
    else {
      try {
        addresses = await withDeadline(resolve(host), deadline);
      } catch (err) {
        return result(0, err instanceof TimeoutError ? 'timeout' : 'network_error');
      }
    }
    if (addresses.length === 0) return result(0, 'network_error');
    // One bad answer refuses the target: a mixed answer is how rebinding attacks start.
    if (!isAllowedAnswer(addresses, allowlisted)) return result(0, 'blocked_target');
    return send(target, host, addresses[0]!, body, headers, deadline);
  };
  return {
    post(url, body, headers) {
      // With tracing on, a client span, and the callback carries its `traceparent` (the receiver
      // joins the clicker's trace). The body is signed, never the headers: the signature is unchanged.
      return tracer === null ? post(url, body, headers) : tracedPost(tracer, url, headers, true, (h) => post(url, body, h));
    },
  };
}

function withDeadline<T>(p: Promise<T>, deadline: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TimeoutError('timeout')), Math.max(0, deadline - Date.now()));
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e as Error);
      },
    );
  });
}

/** Node's socket asks this instead of DNS: it only ever gets the address that was checked. */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as LookupFunction;
}

function send(
  target: URL,
  host: string,
  pinned: ResolvedAddress,
  body: Uint8Array,
  headers: Record<string, string>,
  deadline: number,
): Promise<EgressResponse> {
  return new Promise<EgressResponse>((resolve) => {
    let settled = false;
    const settle = (r: EgressResponse) => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    const isHttps = target.protocol === 'https:';
    const req = (isHttps ? https : http).request({
      method: 'POST',
      hostname: host,
      port: target.port || (isHttps ? 443 : 80),
      path: `${target.pathname}${target.search}`,
      headers: { ...headers, 'content-length': String(body.byteLength) },
      lookup: pinnedLookup(pinned),
      // SNI and the certificate check use the URL's name (never an IP literal as SNI).
      ...(isHttps && isIP(host) === 0 ? { servername: host } : {}),
      // A fresh connection per callback: no pooled socket to another address is ever reused.
      agent: false,
    });
    // Until the body is read or cut: a receiver that answers headers then stalls is cut too.
    const timer = setTimeout(
      () => {
        settle(result(0, 'timeout'));
        req.destroy();
      },
      Math.max(0, deadline - Date.now()),
    );
    req.on('response', (res) => {
      settle(result(res.statusCode ?? 0));
      let drained = 0;
      res.on('data', (chunk: Buffer) => {
        drained += chunk.byteLength;
        if (drained >= MAX_DRAINED_RESPONSE_BYTES) req.destroy();
      });
      // Ended, cut at the cap or at the deadline: the socket is gone either way.
      res.on('close', () => clearTimeout(timer));
      // Our own cut shows as an `aborted` error: nothing to report, the status is already out.
      res.on('error', () => {});
    });
    req.on('error', () => {
      clearTimeout(timer);
      settle(result(0, 'network_error'));
    });
    req.end(body);
  });
}
