// Pure rules of browser push subscriptions: where an endpoint may point, and how many a user keeps.
// The service POSTs to every stored endpoint on each nudge, so an endpoint is a browser vendor's
// push service (RFC 8030), never a host of the user's choosing. Pure: no DNS, no sockets.
import { isIP } from 'node:net';
import type { Issue } from '../errors.js';
import { normalizeHost } from '../urls.rules.js';
import { receiverUrlIssue } from './nudge.rules.js';
import { NUDGE_LIMITS } from './nudges.limits.js';

/**
 * The push services of the browsers that support Web Push: Chrome and other Chromium browsers
 * (FCM), Firefox (Mozilla autopush), Edge (WNS, one host per region) and Safari (Apple).
 * `*.name` matches the subdomains of name, never name itself; any other entry matches exactly.
 */
export const KNOWN_PUSH_SERVICE_HOSTS: readonly string[] = [
  'fcm.googleapis.com',
  'updates.push.services.mozilla.com',
  '*.notify.windows.com',
  'web.push.apple.com',
];

/** The operator's additions to KNOWN_PUSH_SERVICE_HOSTS (config: PUSH_ENDPOINT_ALLOW_HOSTS). */
export const PUSH_ENDPOINT_ALLOW_HOSTS_SETTING = 'PUSH_ENDPOINT_ALLOW_HOSTS';

/** Subscriptions a user keeps (one per browser profile); a new endpoint beyond them replaces the oldest. */
export const MAX_PUSH_SUBSCRIPTIONS_PER_USER = NUDGE_LIMITS.pushSubscriptionsPerUser;

export const PUSH_SERVICE_NOT_ALLOWED = 'push_service_not_allowed';

/** Normalised like every host the egress rules compare (urls.rules.ts normalizeHost): case, IDNA, trailing dot. */
function normalizePattern(entry: string): string {
  const e = entry.trim().toLowerCase();
  if (!e.startsWith('*.')) return normalizeHost(e);
  const suffix = normalizeHost(e.slice(2));
  return suffix === '' ? '' : `*.${suffix}`;
}

/**
 * Does a normalised host match one pattern? `*.notify.windows.com` takes `wns2-par02p.notify.windows.com`
 * but not `notify.windows.com`, `xnotify.windows.com` or `notify.windows.com.evil.com`; an IP
 * literal only ever matches an exact entry.
 */
export function hostMatchesPattern(host: string, pattern: string): boolean {
  const p = normalizePattern(pattern);
  if (p === '' || host === '') return false;
  if (!p.startsWith('*.')) return host === p;
  return isIP(host) === 0 && host.endsWith(p.slice(1)) && host.length > p.length - 1;
}

/** Is this URL's host a known push service, or one the operator added? */
export function isPushServiceEndpoint(url: string, extraHosts: readonly string[]): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const host = normalizeHost(u.hostname);
  return [...KNOWN_PUSH_SERVICE_HOSTS, ...extraHosts].some((p) => hostMatchesPattern(host, p));
}

const NOT_A_PUSH_SERVICE = `must be an https browser push service endpoint (${KNOWN_PUSH_SERVICE_HOSTS.join(', ')}; more via ${PUSH_ENDPOINT_ALLOW_HOSTS_SETTING})`;

/**
 * The endpoint rules, first failing one only: a receiver URL like any other (length, no
 * credentials, https and public addresses unless NUDGE_EGRESS_ALLOW_HOSTS names the host), and on
 * a push service host.
 */
export function pushEndpointIssue(raw: string, opts: { allowHttpHosts: readonly string[]; extraPushHosts: readonly string[] }): Issue | null {
  const urlIssue = receiverUrlIssue(raw, opts.allowHttpHosts);
  if (urlIssue) return { field: 'endpoint', code: 'invalid_url', message: urlIssue };
  if (!isPushServiceEndpoint(raw, opts.extraPushHosts)) return { field: 'endpoint', code: PUSH_SERVICE_NOT_ALLOWED, message: NOT_A_PUSH_SERVICE };
  return null;
}
