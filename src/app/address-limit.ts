// Per-address windows of the anonymous sign-in routes (the sign_in_* budgets of
// domain/rate-budgets.rules.ts), counted by the runner's own budget hit (hitBudget) in the same store
// as the per-token windows. A route checks its budget before it does anything else, so every
// attempt counts, the refused ones included.
import type { Logger } from '../domain/context.js';
import { windowTag, type AddressBudgetName } from '../domain/rate-budgets.rules.js';
import { addressKey } from '../domain/web/sign-in-limits.rules.js';
import type { AppDeps } from './deps.js';
import { hitBudget } from './run-operation.js';

/** Counts one request of `address` against budget `name`; a refusal is a DomainError `rate_limited` with Retry-After. */
export async function limitClientAddress(deps: AppDeps, name: AddressBudgetName, address: string, log: Logger): Promise<void> {
  await hitBudget(deps, name, windowTag(name, addressKey(address)), log);
}
