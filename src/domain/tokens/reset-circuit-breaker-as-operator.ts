// An operator resets a token's circuit breaker (CLI `token reset-breaker --token-id ID`).
import type { z } from 'zod';
import { defineOperation } from '../context.js';
import { ResetCircuitBreakerInput, resetBreaker, type ResetCircuitBreakerResult } from './circuit-breaker.js';

export const resetCircuitBreakerAsOperator = defineOperation<z.infer<typeof ResetCircuitBreakerInput>, ResetCircuitBreakerResult>({
  name: 'tokens.reset_circuit_breaker_operator',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: ResetCircuitBreakerInput,
  handler: async (input, ctx) => resetBreaker(ctx.em, ctx, input.token_id, null),
});
