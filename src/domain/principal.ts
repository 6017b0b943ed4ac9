// Who an operation runs as: made by authentication (tokens/authenticate.ts, web/resolve-web-session.ts)
// or the operator's system principal. A leaf that imports nothing, so the context, the ports and the
// rules all name the caller without importing one another.

export type TokenKind = 'personal' | 'moderation' | 'tools_claim';

export interface InboundTokenPrincipal {
  type: 'inbound_token';
  tokenId: string;
  kind: TokenKind;
  userId: string;
  userEmail: string;
  userRole: string;
  integratorId: string;
  integratorSlug: string;
  allowedEventPrefix: string;
  label: string;
  dailyLimit: number;
  /**
   * Set when the principal was served from the in-process principal cache
   * (infra/tokens/principal-cache.ts) and is not yet proven current: the row versions it was read at.
   * Only the statement that writes the operation's result may prove it (it writes nothing unless
   * the token, owner and integrator rows are still at these versions); a failure of any kind
   * sends the call back through a fresh lookup (runOperation).
   */
  unverified?: PrincipalVersions;
}

/** Row versions (PostgreSQL `xmin`) of a token, its owner and its integrator as they were read. */
export interface PrincipalVersions {
  token: string;
  user: string;
  integrator: string;
}

export interface AgentPrincipal {
  type: 'agent';
  tokenId: string;
  userId: string;
  userEmail: string;
  /** The user's display name, as read with the token (whoami / ping report it). */
  userName: string;
  userRole: string;
  scopes: string[];
  /**
   * Set when the caller is a person signed in to the web app (a session cookie, not an agent
   * token: transports/connect/session-auth.ts). tokenId is then the session id, and the calls
   * count against the session budget (rate-budgets.rules.ts `session`), not the agent one.
   */
  viaSession?: true;
}

/** Operators on the machine (CLI); trusted. */
export interface SystemPrincipal {
  type: 'system';
}

export type Principal = InboundTokenPrincipal | AgentPrincipal | SystemPrincipal;
