// Users holding an agent token, created the way an operator creates them (users.create,
// agent_tokens.create): who the MCP tool tests and the Connect work tests act as.
import { operator, uniqueEmail, type Harness } from './harness.js';

export interface AgentUser {
  userId: string;
  email: string;
  token: string;
  tokenId: string;
}

/** A new agent token for an existing user, holding `scopes` (omitted: `*`). */
export async function withToken(h: Harness, u: { userId: string; email: string }, scopes?: string[]): Promise<AgentUser> {
  const t = await operator<{ tokenId: string; token: string }>(h, 'agent_tokens.create', { email: u.email, ...(scopes ? { scopes } : {}) });
  return { userId: u.userId, email: u.email, token: t.token, tokenId: t.tokenId };
}

/**
 * `agent` and `withToken` bound to a harness read at call time (test files assign it in beforeAll,
 * after this is called). `agent` creates a fresh user of `role` named `name` with a token holding
 * `scopes` (omitted: `*`); pass the name explicitly where a test asserts on it.
 */
export function agents(harness: () => Harness) {
  return {
    async agent(role = 'member', scopes?: string[], name = `A ${role}`): Promise<AgentUser> {
      const u = await operator<{ userId: string; email: string }>(harness(), 'users.create', { email: uniqueEmail(role), name, role });
      return withToken(harness(), u, scopes);
    },
    withToken: (u: { userId: string; email: string }, scopes?: string[]) => withToken(harness(), u, scopes),
  };
}
