// The ONE egress target policy: where a request to a user-supplied URL may go. Used when a URL is
// accepted (webhook action targets, chat and push receivers: publish time, no I/O) and again when
// it is called (infra/http-egress/egress-client.ts, infra/chat/nudge-egress.ts), which add the DNS
// step: resolve the host, refuse the whole answer unless isAllowedAnswer, and connect to a checked
// address only (never a second, possibly rebound, DNS answer). Pure: no DNS, no sockets.
//
// Addresses are classified with ipaddr.js's IANA special-purpose ranges (not hand-written masks).
// IPv6 forms that carry an IPv4 address (mapped, translated, compatible, NAT64, 6to4) are classed
// as that IPv4 address; anything outside global unicast is refused (default deny).
import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { normalizeHostList, normalizeHost } from './urls.rules.js';

export type AddressClass = 'public' | 'loopback' | 'private' | 'link_local' | 'cgnat' | 'unspecified' | 'multicast' | 'metadata' | 'reserved' | 'invalid';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** Cloud instance-metadata endpoints: never reachable, not even for an allowlisted host. */
const METADATA_V4: ReadonlySet<string> = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200']);
const METADATA_V6 = [ipaddr.IPv6.parse('fd00:ec2::254')];

const cidr6 = (s: string) => ipaddr.IPv6.parseCIDR(s);
const NAT64_WELL_KNOWN = cidr6('64:ff9b::/96');
const GLOBAL_UNICAST = cidr6('2000::/3');
/** IPv4-compatible (deprecated ::a.b.c.d): ipaddr.js classes `::7f00:1` as unicast. */
const IPV4_COMPATIBLE = cidr6('::/96');

const V4_CLASS: Readonly<Record<string, AddressClass>> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link_local',
  carrierGradeNat: 'cgnat',
  multicast: 'multicast',
  // broadcast, reserved (IETF protocol assignments, documentation, benchmarking 198.18/15, 6to4
  // relay, class E), as112, amt: never a receiver -> 'reserved' below.
};

const V6_CLASS: Readonly<Record<string, AddressClass>> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  multicast: 'multicast',
  linkLocal: 'link_local',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  // Teredo (2001::/32) tunnels to an IPv4 server and client of the sender's choosing; discard,
  // benchmarking, documentation, ORCHID, AMT, AS112, segment routing: all 'reserved' below.
};

function classifyV4(a: IPv4): AddressClass {
  if (METADATA_V4.has(a.toString())) return 'metadata';
  const range = a.range();
  // 0.0.0.0/8 is "this network"; only 0.0.0.0 itself is the unspecified address.
  if (range === 'unspecified') return a.octets.every((o) => o === 0) ? 'unspecified' : 'reserved';
  return V4_CLASS[range] ?? 'reserved';
}

/** The IPv4 address in the last 32 bits (or at word `at`) of an IPv6 address. */
const embeddedV4 = (a: IPv6, at = 6): IPv4 => {
  const hi = a.parts[at]!;
  const lo = a.parts[at + 1]!;
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
};

function classifyV6(a: IPv6): AddressClass {
  if (METADATA_V6.some((m) => a.match(m, 128))) return 'metadata';
  // Wider than ipaddr.js's type: it also returns discard, deprecatedSiteLocal, segmentRouting...
  const range: string = a.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:0:0/96, what a dual-stack socket reaches as IPv4
    case 'rfc6145': // ::ffff:0:0:0/96, IPv4-translated (SIIT)
      return classifyV4(embeddedV4(a));
    case 'rfc6052': // 64:ff9b::/96 translates to the embedded IPv4; 64:ff9b:1::/48 is local-use
      return a.match(NAT64_WELL_KNOWN) ? classifyV4(embeddedV4(a)) : 'private';
    case '6to4': // 2002:AABB:CCDD::/48 is the site behind IPv4 AA.BB.CC.DD
      return classifyV4(embeddedV4(a, 1));
    case 'unicast':
      if (a.match(IPV4_COMPATIBLE)) return classifyV4(embeddedV4(a));
      return a.match(GLOBAL_UNICAST) ? 'public' : 'reserved';
    default:
      return V6_CLASS[range] ?? 'reserved';
  }
}

/**
 * The class of one literal IP address (v4 or v6, IPv6 optionally in brackets or with a zone id).
 * Only the strict textual forms that DNS answers and URL hosts use are addresses (`127.1` or
 * `0x7f.1` are not); anything else is `invalid`.
 */
export function classifyAddress(address: string): AddressClass {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(text);
  if (family === 0) return 'invalid';
  try {
    const a = ipaddr.parse(text);
    return a.kind() === 'ipv4' ? classifyV4(a as IPv4) : classifyV6(a as IPv6);
  } catch {
    return 'invalid';
  }
}

/** Classes an allowlisted host may still reach: its own private or loopback address, never metadata. */
const ALLOWLISTED_EXTRA: ReadonlySet<AddressClass> = new Set(['loopback', 'private', 'link_local', 'cgnat', 'reserved']);

const isAllowedClass = (c: AddressClass, allowPrivate: boolean): boolean => c === 'public' || (allowPrivate && ALLOWLISTED_EXTRA.has(c));

/** May a request go to this address? `allowPrivate` only for a host on the egress allowlist. */
export function isAllowedAddress(address: string, allowPrivate = false): boolean {
  return isAllowedClass(classifyAddress(address), allowPrivate);
}

/** A DNS answer is usable only when EVERY address is allowed: a mixed answer is how rebinding starts. */
export function isAllowedAnswer(addresses: ReadonlyArray<{ address: string }>, allowPrivate: boolean): boolean {
  return addresses.length > 0 && addresses.every((a) => isAllowedAddress(a.address, allowPrivate));
}

/**
 * An egress allowlist (EGRESS_ALLOW_HOSTS for callbacks, NUDGE_EGRESS_ALLOW_HOSTS for nudges), with
 * the same normalisation as every target host (normalizeHost: lower case, no trailing dot, no IPv6
 * brackets, no port, canonical IP literals).
 */
export function allowHostSet(hosts: readonly string[]): ReadonlySet<string> {
  return new Set(normalizeHostList(hosts));
}

/**
 * `url` is plain http or https to a host on `allowHosts`, the operator's EGRESS_ALLOW_HOSTS: accepted
 * at publish as a webhook target (event-validation.rules.ts, from DomainConfig.egressAllowHosts);
 * the callback client is built with the same list (src/deps.ts). Empty: the strict rule.
 */
export function isAllowlistedTarget(url: string, allowHosts: ReadonlySet<string>): boolean {
  if (allowHosts.size === 0 || !/^https?:\/\//i.test(url)) return false;
  const d = egressDecision(url, allowHosts);
  return d.ok && d.target.allowlisted;
}

export interface EgressTarget {
  url: URL;
  /** The URL's host, normalised (no brackets): what the allowlist, Host and SNI use. */
  host: string;
  /** On the allowlist: plain http and private/loopback addresses are allowed (never metadata). */
  allowlisted: boolean;
  /** 4 or 6 for an IP-literal host (already checked here), 0 for a name (check its DNS answer). */
  literal: 0 | 4 | 6;
}

/** Why a target is refused: not a URL with a host, a scheme other than https, or a host it may not reach. */
export type EgressRefusal = 'invalid_url' | 'scheme' | 'address';

export type EgressDecision = { ok: true; target: EgressTarget } | { ok: false; refusal: EgressRefusal };

/** `localhost` and `*.localhost` always name the loopback interface (RFC 6761 §6.3): no DNS needed to class them. */
const isLocalhostName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/** A normalised host, classed without DNS: an IP literal's class, `loopback` for a localhost name, else `name`. */
const hostClass = (host: string): AddressClass | 'name' => (isIP(host) !== 0 ? classifyAddress(host) : isLocalhostName(host) ? 'loopback' : 'name');

/** The class of a URL's host without DNS (`name`: known only after resolution); `invalid` for no URL or no host. */
export function urlHostClass(url: string): AddressClass | 'name' {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'invalid';
  }
  const host = normalizeHost(u.hostname);
  return host === '' ? 'invalid' : hostClass(host);
}

/**
 * The URL rule of every egress target: https only (plain http only for an allowlisted host); an
 * IP-literal host must be an allowed address, and a localhost name is loopback. A host name's
 * addresses are checked when it is called (isAllowedAnswer on its DNS answer).
 */
export function egressDecision(url: string, allowHosts: ReadonlySet<string>): EgressDecision {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, refusal: 'invalid_url' };
  }
  const host = normalizeHost(u.hostname);
  if (host === '') return { ok: false, refusal: 'invalid_url' };
  const allowlisted = allowHosts.has(host);
  if (!(u.protocol === 'https:' || (u.protocol === 'http:' && allowlisted))) return { ok: false, refusal: 'scheme' };
  const c = hostClass(host);
  if (c !== 'name' && !isAllowedClass(c, allowlisted)) return { ok: false, refusal: 'address' };
  return { ok: true, target: { url: u, host, allowlisted, literal: isIP(host) as 0 | 4 | 6 } };
}

/** The target to call, or null when the policy refuses it (send time: reported as blocked_target). */
export function egressTarget(url: string, allowHosts: ReadonlySet<string>): EgressTarget | null {
  const d = egressDecision(url, allowHosts);
  return d.ok ? d.target : null;
}
