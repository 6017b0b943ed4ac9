// What of a request URL may be written to logs and trace attributes: the path only (a careless
// client may put a token in the query string; the OIDC callback carries its code and state there),
// and the one-time sign-in link's secret, which is a path segment (/auth/link/<token>), replaced.
export function loggablePath(url: string | undefined): string | undefined {
  return url?.split('?')[0]?.replace(/^\/auth\/link\/[^/]+/, '/auth/link/[redacted]');
}
