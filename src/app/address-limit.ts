// Per-address windows of the anonymous sign-in routes (the sign_in_* budgets of
// domain/rate-budgets.rules.ts), in the same store as the per-token windows (Redis, or in process
// when embedded). A route checks its budget before it does anything else, so every attempt counts,
// the refused ones included.
import type { Logger } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { RATE_BUDGETS, windowTag, type AddressBudgetName } from '../domain/rate-budgets.rules.js';
import { addressKey } from '../domain/web/sign-in-limits.rules.js';
import type { AppDeps } from './deps.js';

/** Counts one request of `address` against budget `name`; a refusal is a DomainError `rate_limited` with Retry-After. */
export async function limitClientAddress(deps: AppDeps, name: AddressBudgetName, address: string, log: Logger): Promise<void> {
  const nowMs = deps.clock.now().getTime();
  const budget = RATE_BUDGETS[name];
  let decisions: Awaited<ReturnType<AppDeps['rateLimiter']['hitAll']>>;
  try {
    decisions = await deps.rateLimiter.hitAll(windowTag(name, addressKey(address)), budget.windows, nowMs);
  } catch (err) {
    // Fails open, like the per-token windows: sign-in stays available when Redis is down.
    deps.metrics.storeUnavailable('rate_limit', 'fail_open');
    log.warn({ err: { message: (err as Error).message } }, 'rate-limit store unavailable; sign-in request allowed');
    return;
  }
  const refused = decisions.findIndex((d) => !d.allowed);
  if (refused < 0) return;
  const decision = decisions[refused]!;
  const window = budget.windows[refused]!;
  deps.metrics.rateLimitDenied(budget.metricsLabel, window.per);
  const retryAfterSeconds = Math.max(1, Math.ceil((decision.resetAtMs - nowMs) / 1000));
  throw new DomainError('rate_limited', `at most ${window.limit} such requests a ${window.per} from one address`, {
    code: 'rate_limited',
    rateLimit: { limit: decision.limit, remaining: decision.remaining, resetAtUnix: Math.ceil(decision.resetAtMs / 1000), retryAfterSeconds },
  });
}
