// Which IP addresses an outgoing request may reach (SSRF guard for webhook action callbacks,
// SPEC "Action callback (outgoing)"). Pure: no DNS, no sockets. The client resolves a host, runs
// every address through classifyAddress and refuses the whole target when any of them is not
// public, then connects to the checked address only.
import { isIP } from 'node:net';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'unspecified'
  | 'multicast'
  | 'metadata'
  | 'reserved'
  | 'invalid';

/** Cloud instance-metadata endpoints: never reachable, not even for an allowlisted host. */
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200']);
const METADATA_V6 = ['fd00:ec2::254'];

export function parseIPv4(s: string): number | null {
  if (isIP(s) !== 4) return null;
  const [a, b, c, d] = s.split('.').map(Number) as [number, number, number, number];
  return ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
}

/** 16 bytes, or null. Accepts `::`, an embedded dotted quad and a zone id (`fe80::1%eth0`). */
export function parseIPv6(input: string): Uint8Array | null {
  const s = input.replace(/^\[|\]$/g, '').split('%')[0]!;
  if (isIP(s) !== 6) return null;
  let head = s;
  const tailV4: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    tailV4.push((v4 >>> 16) & 0xffff, v4 & 0xffff);
    head = s.slice(0, lastColon + 1);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').filter((g) => g !== '').map((g) => parseInt(g, 16)) : []);
  const l = groups(left);
  const r = [...groups(right), ...tailV4];
  const fill = right === undefined && !head.includes('::') ? 0 : 8 - l.length - r.length;
  const words = [...l, ...new Array<number>(Math.max(0, fill)).fill(0), ...r];
  if (words.length !== 8) return null;
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[i * 2] = w >> 8;
    bytes[i * 2 + 1] = w & 0xff;
  });
  return bytes;
}

const inV4 = (ip: number, base: string, bits: number) => {
  const b = parseIPv4(base)!;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return ((ip & mask) >>> 0) === ((b & mask) >>> 0);
};

function classifyV4(ip: number, text: string): AddressClass {
  if (METADATA_V4.has(text)) return 'metadata';
  if (ip === 0) return 'unspecified';
  if (inV4(ip, '0.0.0.0', 8)) return 'reserved'; // "this network"
  if (inV4(ip, '127.0.0.0', 8)) return 'loopback';
  if (inV4(ip, '10.0.0.0', 8) || inV4(ip, '172.16.0.0', 12) || inV4(ip, '192.168.0.0', 16)) return 'private';
  if (inV4(ip, '169.254.0.0', 16)) return 'link_local';
  if (inV4(ip, '100.64.0.0', 10)) return 'cgnat';
  if (inV4(ip, '224.0.0.0', 4)) return 'multicast';
  // Broadcast, class E, IETF assignments, benchmarking and documentation ranges: never a receiver.
  if (inV4(ip, '240.0.0.0', 4) || inV4(ip, '192.0.0.0', 24) || inV4(ip, '198.18.0.0', 15) || inV4(ip, '192.0.2.0', 24) || inV4(ip, '198.51.100.0', 24) || inV4(ip, '203.0.113.0', 24)) {
    return 'reserved';
  }
  return 'public';
}

const v4FromBytes = (b: Uint8Array, at: number) => ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!;
const v4Text = (n: number) => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
const zeros = (b: Uint8Array, from: number, to: number) => b.slice(from, to).every((x) => x === 0);

function classifyV6(b: Uint8Array): AddressClass {
  if (METADATA_V6.some((m) => parseIPv6(m)!.every((x, i) => x === b[i]))) return 'metadata';
  if (zeros(b, 0, 16)) return 'unspecified';
  if (zeros(b, 0, 15) && b[15] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible (::a.b.c.d): the embedded
  // IPv4 address is what the socket reaches.
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return classifyEmbedded(b, 12);
  if (zeros(b, 0, 12)) return classifyEmbedded(b, 12);
  // NAT64 well-known prefix 64:ff9b::/96 translates to the embedded IPv4 address.
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(b, 4, 12)) return classifyEmbedded(b, 12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b[4] === 0x00 && b[5] === 0x01) return 'private'; // 64:ff9b:1::/48 local-use NAT64
  if (b[0] === 0x20 && b[1] === 0x02) return classifyEmbedded(b, 2); // 6to4 2002::/16
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00) return 'reserved'; // Teredo 2001::/32 (tunnels to any IPv4)
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8) return 'reserved'; // documentation 2001:db8::/32
  if (b[0] === 0x01 && b[1] === 0x00 && zeros(b, 2, 8)) return 'reserved'; // discard 100::/64
  if ((b[0]! & 0xfe) === 0xfc) return 'private'; // unique local fc00::/7
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link_local'; // fe80::/10
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return 'private'; // deprecated site-local fec0::/10
  if (b[0] === 0xff) return 'multicast';
  return 'public';
}

function classifyEmbedded(b: Uint8Array, at: number): AddressClass {
  const n = v4FromBytes(b, at);
  return classifyV4(n, v4Text(n));
}

/** The class of one literal IP address (v4 or v6); anything unparsable is `invalid`. */
export function classifyAddress(address: string): AddressClass {
  const v4 = parseIPv4(address);
  if (v4 !== null) return classifyV4(v4, address);
  const v6 = parseIPv6(address);
  if (v6 !== null) return classifyV6(v6);
  return 'invalid';
}

/** Classes an allowlisted host may still reach: its own private or loopback address, never metadata. */
const ALLOWLISTED_EXTRA: ReadonlySet<AddressClass> = new Set(['loopback', 'private', 'link_local', 'cgnat', 'reserved']);

/** May a request go to this address? `allowPrivate` only for a host on the egress allowlist. */
export function isAllowedAddress(address: string, allowPrivate = false): boolean {
  const c = classifyAddress(address);
  return c === 'public' || (allowPrivate && ALLOWLISTED_EXTRA.has(c));
}
