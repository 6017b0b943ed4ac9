// An admin resets a token's circuit breaker (ModerationService.ResetCircuitBreaker): admin role and
// scope admin:tokens. The owner is told when the breaker was open.
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { requireAdminUser } from '../users/admin-role.rules.js';
import { ResetCircuitBreakerInput, resetBreaker, type ResetCircuitBreakerResult } from './circuit-breaker.js';

export const resetCircuitBreaker = defineOperation<z.infer<typeof ResetCircuitBreakerInput>, ResetCircuitBreakerResult, AgentPrincipal>({
  name: 'tokens.reset_circuit_breaker',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['admin:tokens'],
  idempotent: true,
  writes: true,
  input: ResetCircuitBreakerInput,
  handler: async (input, ctx) => {
    requireAdminUser(ctx.principal);
    return resetBreaker(ctx.em, ctx, input.token_id, ctx.principal.userId);
  },
});
