// Limits of the anonymous sign-in routes (docs/web-sign-in.md "Limits"): windows per client
// address, since there is no token or session to count against yet, and a bound on the server-side
// halves of OIDC sign-ins that were started and not finished.
import ipaddr from 'ipaddr.js';

export interface AddressBudget {
  /** The budget's name: its window key and its metrics label. */
  name: 'sign_in_link' | 'sign_in_oidc_start' | 'sign_in_oidc_callback';
  limit: number;
  windowMs: number;
}

/** POST /auth/link/<token>: guessing a link's 256-bit secret is hopeless, but each try is a database write. */
export const LOGIN_LINK_BUDGET: AddressBudget = { name: 'sign_in_link', limit: 20, windowMs: 60_000 };
/**
 * GET /auth/oidc/start and GET /auth/oidc/callback, each: generous, because a whole office behind one
 * company NAT signs in within minutes at 9:00; a start writes a row, a callback calls the provider.
 */
export const OIDC_START_BUDGET: AddressBudget = { name: 'sign_in_oidc_start', limit: 120, windowMs: 60_000 };
export const OIDC_CALLBACK_BUDGET: AddressBudget = { name: 'sign_in_oidc_callback', limit: 120, windowMs: 60_000 };

export const ADDRESS_BUDGETS: readonly AddressBudget[] = [LOGIN_LINK_BUDGET, OIDC_START_BUDGET, OIDC_CALLBACK_BUDGET];

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
