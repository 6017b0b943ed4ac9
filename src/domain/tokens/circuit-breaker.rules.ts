// Per-token circuit breaker (SPEC Limits: "failure rate above 80% over a continuous hour with more
// than 20 failures"; Errors: 429 with Retry-After, `circuit_open`). A failure is a publish the
// service rejected for its content: 400 schema_invalid or 403 cross_project_blocked (audited as
// inbound.event.rejected). Accepted events (202, 200 repeat, 200 degraded) are successes; 401, 429
// and 5xx are neither. Failures are counted only on the failure path, from the audit log.
import { DomainError } from '../errors.js';
import { budgetWindow } from '../rate-budgets.rules.js';

export const BREAKER_WINDOW_MS = 60 * 60 * 1000;
/** More than this many failures in the window... */
export const BREAKER_MIN_FAILURES = 20;
/** ...and a failure share above this trips the breaker. */
export const BREAKER_FAILURE_RATE = 0.8;
/** How long a tripped token stays suspended unless an admin resets it sooner. */
export const BREAKER_SUSPENSION_MS = 60 * 60 * 1000;
/** X-RateLimit-Limit on a circuit_open 429: the token's per-minute publish budget, the one a suspension stops. */
const INBOUND_PER_MINUTE = budgetWindow('publish', 'minute').limit;

export function shouldTrip(failures: number, successes: number): boolean {
  const total = failures + successes;
  return failures > BREAKER_MIN_FAILURES && total > 0 && failures / total > BREAKER_FAILURE_RATE;
}

/** The counting window starts an hour ago, or at the last suspension end / reset if later. */
export function windowStart(now: Date, breakerSince: Date | null): Date {
  const hourAgo = new Date(now.getTime() - BREAKER_WINDOW_MS);
  return breakerSince !== null && breakerSince > hourAgo ? breakerSince : hourAgo;
}

export function circuitOpenError(openUntil: Date, now: Date): DomainError {
  const retryAfterSeconds = Math.max(1, Math.ceil((openUntil.getTime() - now.getTime()) / 1000));
  return new DomainError(
    'rate_limited',
    `this token is suspended by the circuit breaker (too many rejected events) until ${openUntil.toISOString()}; wait, or ask an admin to reset it`,
    {
      code: 'circuit_open',
      rateLimit: { limit: INBOUND_PER_MINUTE, remaining: 0, resetAtUnix: Math.ceil(openUntil.getTime() / 1000), retryAfterSeconds },
      extra: { suspended_until: openUntil.toISOString() },
    },
  );
}
