// Rules for URLs that callers hand to the service (SPEC "What the service does" 3: no credentials are
// stored; Events rule 5: no credential query parameter), and the one host normalisation of every
// egress allowlist and target (egress-policy.rules.ts). Pure: no DNS, no sockets.
import { isIP } from 'node:net';

/** Parameter names that carry credentials (SPEC rule 5: "token, secret, api_key and similar"). */
export const CREDENTIAL_PARAMS: ReadonlySet<string> = new Set([
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'auth_token',
  'authtoken',
  'auth',
  'authorization',
  'secret',
  'client_secret',
  'api_key',
  'apikey',
  'api-key',
  'key_secret',
  'password',
  'passwd',
  'pwd',
  'credential',
  'credentials',
  'private_key',
  'session',
  'session_id',
  'sessionid',
  'jwt',
  'signature',
  'sig',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
]);

export type UrlIssueCode = 'invalid_format' | 'credential_param' | 'credential_userinfo';

export interface UrlIssue {
  code: UrlIssueCode;
  message: string;
}

const decode = (s: string) => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
};

/**
 * Keys of `key=value` pairs in a fragment: `#a=1&b=2` (OAuth implicit flow) and the part after `?`
 * of a hash-router fragment (`#/cb?access_token=...`). A bare anchor (`#token`) is not a parameter.
 */
function fragmentParamKeys(hash: string): string[] {
  const frag = hash.startsWith('#') ? hash.slice(1) : hash;
  const q = frag.indexOf('?');
  const parts = q >= 0 ? [frag, frag.slice(q + 1)] : [frag];
  const keys: string[] = [];
  for (const part of parts) {
    for (const pair of part.split(/[&;]/)) {
      const eq = pair.indexOf('=');
      if (eq > 0) keys.push(decode(pair.slice(0, eq)));
    }
  }
  return keys;
}

const isCredentialKey = (k: string) => CREDENTIAL_PARAMS.has(k.trim().toLowerCase());

/**
 * Why a URL may not be stored (empty: it may). One parse per URL. Secrets are refused wherever a
 * URL carries them: userinfo (`https://user:pw@host/`, also a user name alone, the usual place of a
 * token sent as a basic-auth user), a credential query parameter, or a credential parameter in the
 * fragment (`#access_token=...`). A string the URL parser cannot read is `invalid_format`.
 */
export function urlIssues(url: string): UrlIssue[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [{ code: 'invalid_format', message: 'must be a valid URL' }];
  }
  const out: UrlIssue[] = [];
  if (u.username !== '' || u.password !== '') {
    out.push({ code: 'credential_userinfo', message: 'must not carry credentials before the host (user:password@)' });
  }
  let param = false;
  for (const k of u.searchParams.keys()) if (isCredentialKey(k)) param = true;
  if (param) out.push({ code: 'credential_param', message: 'must not carry credential query parameters (token, secret, api_key...)' });
  else if (u.hash.length > 1 && fragmentParamKeys(u.hash).some(isCredentialKey)) {
    out.push({ code: 'credential_param', message: 'must not carry credential fragment parameters (#access_token=, #token=, #api_key=...)' });
  }
  return out;
}

/**
 * A host as every allowlist and every target compares it: lower case, IDNA and IP literals in the
 * URL parser's canonical form (`127.1` -> `127.0.0.1`, `[0:0::1]` -> `::1`), no IPv6 brackets, no
 * port, no trailing dot. Used for config entries (EGRESS_ALLOW_HOSTS, NUDGE_EGRESS_ALLOW_HOSTS) and
 * for the host of each URL, so both sides always agree.
 */
export function normalizeHost(entry: string): string {
  const h = entry.trim().toLowerCase();
  if (h === '') return '';
  // A bare IPv6 literal is not a URL authority: bracket it first (a zone id cannot be in a URL).
  const authority = isIP(h.split('%')[0]!) === 6 ? `[${h.split('%')[0]}]` : h;
  let host: string;
  try {
    host = new URL(`http://${authority}/`).hostname;
  } catch {
    host = h;
  }
  return host.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
}

/** Allowlist entries, each normalised (normalizeHost), without empty entries: the one allowlist parser. */
export const normalizeHostList = (entries: readonly string[]): string[] => entries.map(normalizeHost).filter(Boolean);

/** A comma list of hosts (config: EGRESS_ALLOW_HOSTS, NUDGE_EGRESS_ALLOW_HOSTS), normalised. */
export const parseHostList = (csv: string | undefined): readonly string[] => Object.freeze(normalizeHostList((csv ?? '').split(',')));
