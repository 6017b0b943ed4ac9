// One-click client setup: a signed-in user (agent token, or an operator on the CLI) starts a
// connect session with the scopes the new agent token will carry; the AI client exchanges the
// session id once for that token (exchange-connect-session.ts). What both ways of starting share.
import { z } from 'zod';
import type { OpContext } from '../context.js';
import { recordAudit } from '../audit/audit.js';
import { RequestedScopes } from './agent-tokens.shared.js';
import { connectSessionExpiry, connectSessionHash, newConnectSessionId } from './connect-session.rules.js';
import { insertConnectSession } from './connect-session.repository.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

export const CONNECT_AUDIT = {
  sessionStarted: 'agent.connect_session.started',
} as const;

export interface ConnectSessionStarted {
  session_id: string;
  expires_at: string;
}

export const StartConnectSessionInput = z.strictObject({
  scopes: RequestedScopes,
  label: z.string().min(1).max(TOKEN_LIMITS.labelMax).default('connect'),
});

/** In the caller's transaction (a writing operation's `em`). */
export async function beginConnectSession(
  ctx: OpContext,
  userId: string,
  scopes: string[],
  label: string,
  actorUserId: string | null,
): Promise<ConnectSessionStarted> {
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
