// One-click client setup. A signed-in user (agent token, or an operator on the CLI) starts a
// connect session with the scopes the new token will carry; the AI client exchanges the session
// id once, without a bearer, at POST /api/internal-os/agent/connect-callback and receives a real
// agent token plus the /mcp address (SPEC section B, connect-callback row). Sessions live 10
// minutes and are stored hashed. A reused, expired or unknown session gets the same 400
// `invalid_session`, so the answer reveals nothing about which it was.
import { z } from 'zod';
import { defineOperation, type OpContext } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { DomainError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { insertAgentToken } from '../tokens/create-agent-token.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { User } from '../users/users.entity.js';
import { AGENT_AUDIT, effectiveScopes, requireScopesWithin, RequestedScopes, SELF_MANAGEMENT_SCOPES } from './agent-tokens.js';
import { connectSessionExpiry, connectSessionHash, newConnectSessionId } from './connect-session.rules.js';
import { consumeConnectSession, insertConnectSession } from './connect-session.repository.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { TOKEN_LIMITS } from '../tokens/tokens.limits.js';

export const CONNECT_AUDIT = {
  sessionStarted: 'agent.connect_session.started',
} as const;

export interface ConnectSessionStarted {
  session_id: string;
  expires_at: string;
}

/** In the caller's transaction (a writing operation's `em`). */
async function startSession(ctx: OpContext, userId: string, scopes: string[], label: string, actorUserId: string | null): Promise<ConnectSessionStarted> {
  const now = ctx.clock.now();
  const sessionId = newConnectSessionId();
  const expiresAt = connectSessionExpiry(now);
  const id = await insertConnectSession(ctx.em, { sessionHash: connectSessionHash(sessionId), userId, scopes, label, expiresAt, now });
  recordAudit(ctx.em, ctx, {
    action: CONNECT_AUDIT.sessionStarted,
    actorUserId,
    targetType: 'connect_session',
    targetId: id,
    summary: { user_id: userId, scopes },
  });
  return { session_id: sessionId, expires_at: expiresAt.toISOString() };
}

export const StartConnectSessionInput = z.strictObject({
  scopes: RequestedScopes,
  label: z.string().min(1).max(TOKEN_LIMITS.labelMax).default('connect'),
});

/** The user starts a session for themselves; the token it yields is no wider than the caller's. */
export const startConnectSession = defineOperation<z.infer<typeof StartConnectSessionInput>, ConnectSessionStarted, AgentPrincipal>({
  name: 'agent_connect.start_own',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: SELF_MANAGEMENT_SCOPES,
  idempotent: false,
  writes: true,
  input: StartConnectSessionInput,
  handler: async (input, ctx) => {
    const scopes = effectiveScopes(input.scopes);
    requireScopesWithin(ctx.principal.scopes, scopes);
    return startSession(ctx, ctx.principal.userId, scopes, input.label, ctx.principal.userId);
  },
});

export const StartConnectSessionForUserInput = StartConnectSessionInput.extend({ email: z.email().max(USER_LIMITS.emailMax) });

/** Operator (CLI `fluxdesk agent-connect --email E [--scopes a,b]`): trusted, any scopes. */
export const startConnectSessionForUser = defineOperation<z.infer<typeof StartConnectSessionForUserInput>, ConnectSessionStarted>({
  name: 'agent_connect.start',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: StartConnectSessionForUserInput,
  handler: async (input, ctx) => {
    const user = await requireUserByEmail(ctx.em, input.email);
    if (user.status !== 'active') throw new DomainError('conflict', `user is ${user.status}`, { code: 'user_inactive' });
    return startSession(ctx, user.id, effectiveScopes(input.scopes), input.label, null);
  },
});

export const ExchangeConnectSessionInput = z.strictObject({
  // Any string: a malformed id is just another unknown session (same answer).
  session_id: z.string().min(1).max(TOKEN_LIMITS.connectSessionIdMax),
});

export interface ConnectSessionExchanged {
  token: string;
  token_id: string;
  scopes: string[];
  user_email: string;
  mcp_url: string;
}

const invalidSession = () =>
  new DomainError('validation', 'the session is unknown, expired or already used; start a new one', {
    code: 'invalid_session',
    issues: [{ field: 'session_id', code: 'invalid_session', message: 'the session is unknown, expired or already used' }],
  });

/** No bearer: the session id is the credential, good for exactly one agent token. */
export const exchangeConnectSession = defineOperation<z.infer<typeof ExchangeConnectSessionInput>, ConnectSessionExchanged>({
  name: 'agent_connect.exchange',
  auth: { kind: 'none' },
  budget: null,
  idempotent: false,
  writes: true,
  input: ExchangeConnectSessionInput,
  handler: async (input, ctx) => {
    const em = ctx.em;
    const now = ctx.clock.now();
    const session = await consumeConnectSession(em, connectSessionHash(input.session_id), now);
    if (!session) throw invalidSession();
    // Offboarded since the session started: same answer (the transaction rolls the use back).
    const user = await em.findOne(User, { id: session.userId });
    if (user?.status !== 'active') throw invalidSession();
    const created = insertAgentToken(em, ctx, user.id, session.scopes, session.label);
    recordAudit(em, ctx, {
      action: AGENT_AUDIT.tokenCreated,
      actorUserId: user.id,
      tokenId: created.tokenId,
      targetType: 'agent_token',
      targetId: created.tokenId,
      summary: { scopes: created.scopes, by: 'connect_session', connect_session_id: session.id },
    });
    return { token: created.token, token_id: created.tokenId, scopes: created.scopes, user_email: user.email, mcp_url: `${ctx.config.publicBaseUrl}/mcp` };
  },
});
