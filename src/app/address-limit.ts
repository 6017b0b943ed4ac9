// Per-address windows of the anonymous sign-in routes (domain/web/sign-in-limits.rules.ts), in the
// same store as the per-token windows (Redis, or in process when embedded). A route checks its
// budget before it does anything else, so every attempt counts, the refused ones included.
import type { Logger } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { addressKey, type AddressBudget } from '../domain/web/sign-in-limits.rules.js';
import type { AppDeps } from './deps.js';

/** Counts one request of `address` against `budget`; a refusal is a DomainError `rate_limited` with Retry-After. */
export async function limitClientAddress(deps: AppDeps, budget: AddressBudget, address: string, log: Logger): Promise<void> {
  const nowMs = deps.clock.now().getTime();
  let decision: Awaited<ReturnType<AppDeps['rateLimiter']['hit']>>;
  try {
    decision = await deps.rateLimiter.hit(`addr:${budget.name}:${addressKey(address)}`, budget.limit, budget.windowMs, nowMs);
  } catch (err) {
    // Fails open, like the per-token windows: sign-in stays available when Redis is down.
    deps.metrics.storeUnavailable('rate_limit', 'fail_open');
    log.warn({ err: { message: (err as Error).message } }, 'rate-limit store unavailable; sign-in request allowed');
    return;
  }
  if (decision.allowed) return;
  deps.metrics.rateLimitDenied(budget.name, 'minute');
  const retryAfterSeconds = Math.max(1, Math.ceil((decision.resetAtMs - nowMs) / 1000));
  throw new DomainError('rate_limited', `at most ${budget.limit} such requests a minute from one address`, {
    code: 'rate_limited',
    rateLimit: { limit: decision.limit, remaining: decision.remaining, resetAtUnix: Math.ceil(decision.resetAtMs / 1000), retryAfterSeconds },
  });
}
