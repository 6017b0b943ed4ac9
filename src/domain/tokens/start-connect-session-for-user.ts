// An operator starts a connect session for an active user (CLI `fluxdesk agent-connect --email E
// [--scopes a,b]`): trusted, so any scopes.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError } from '../errors.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { effectiveScopes } from './agent-tokens.shared.js';
import { beginConnectSession, StartConnectSessionInput, type ConnectSessionStarted } from './connect-session.shared.js';
import { USER_LIMITS } from '../users/users.limits.js';

export const StartConnectSessionForUserInput = StartConnectSessionInput.extend({ email: z.email().max(USER_LIMITS.emailMax) });

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
    return beginConnectSession(ctx, user.id, effectiveScopes(input.scopes), input.label, null);
  },
});
