// Every limit of web sign-in and sessions (docs/web-sign-in.md), named once: the zod schemas, the
// stored columns and the sign-in routes read them here. No imports: the web app may import this file.

/** Lengths in characters. */
export const WEB_LIMITS = {
  /**
   * A secret value as an input takes it: a session or CSRF token, a login link's token, an OIDC
   * state (the real ones are far shorter; anything longer cannot be one).
   */
  secretValueMax: 200,
  /** `next` as a sign-in start takes it; safeNextPath keeps at most nextPathMax (percent-encoded). */
  nextInputMax: 4000,
  nextPathMax: 2000,
  /** OIDC: the ID token's issuer and subject (oidc_identities), and its email claim (RFC 5321's 320). */
  oidcIssuerMax: 500,
  oidcSubjectMax: 255,
  oidcEmailMax: 320,
  /** A sign-in's User-Agent: as an input takes it, and as web_sessions.user_agent keeps it. */
  userAgentInputMax: 2000,
  userAgentKeptMax: 300,
} as const;
