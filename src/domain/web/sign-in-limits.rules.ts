// Limits of the anonymous sign-in routes (docs/web-sign-in.md "Limits"): windows per client
// address (the sign_in_* budgets of rate-budgets.rules.ts), since there is no token or session to
// count against yet, and a bound on the server-side halves of OIDC sign-ins started and not finished.
import ipaddr from 'ipaddr.js';

/**
 * OIDC sign-ins started and neither finished nor expired (10 minutes each), across all clients: a
 * start beyond it is answered 503 with Retry-After, so a flood from many addresses cannot grow the
 * table without bound. About 200 bytes a row; far above any company's sign-ins in 10 minutes.
 */
export const OIDC_PENDING_MAX = 20_000;

/**
 * What a client address is counted as: an IPv4 address itself; an IPv6 address by its /64, the
 * smallest block a single site is given (one host can use every address in it). IPv4-mapped IPv6
 * (`::ffff:10.0.0.1`) counts as the IPv4 address. Anything unparsable counts as itself.
 */
export function addressKey(address: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return address;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
    const parts = v6.parts.slice(0, 4).map((p) => p.toString(16));
    return `${parts.join(':')}::/64`;
  }
  return parsed.toString();
}
