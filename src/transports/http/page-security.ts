// The security headers of every HTML page this process serves: the web app and its sign-in and
// error pages, and the API docs viewer, which lives on the same origin as the session cookies.
// One strict policy fits them all: scripts and styles from this origin only (no inline; Swagger UI
// writes styles through the CSSOM, which the policy allows), data: images (Swagger UI's icons),
// calls to this origin, never in a frame.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
});
