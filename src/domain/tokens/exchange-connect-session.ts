// The AI client exchanges a connect session id, without a bearer, at POST
// /api/internal-os/agent/connect-callback for a real agent token plus the /mcp address (SPEC
// section B, connect-callback row). A reused, expired or unknown session gets the same 400
// `invalid_session`, so the answer reveals nothing about which it was.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError } from '../errors.js';
import { recordAudit } from '../audit/audit.js';
import { User } from '../users/users.entity.js';
import { AGENT_AUDIT } from './agent-tokens.shared.js';
import { connectSessionHash } from './connect-session.rules.js';
import { consumeConnectSession } from './connect-session.repository.js';
import { insertAgentToken } from './create-agent-token.js';
import { TOKEN_LIMITS } from './tokens.limits.js';

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
