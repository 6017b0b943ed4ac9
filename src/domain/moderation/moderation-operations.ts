// Moderation tokens (mode 2) and the hold-for-forwarding queue: agent operations (MCP tools and
// ModerationService RPCs) and operator operations (the CLI). The circuit breaker reset lives in
// domain/tokens and is served by ModerationService too.
import type { Operation } from '../context.js';
import { createModerationToken } from './create-moderation-token.js';
import { issueAdminModerationToken } from './issue-admin-moderation-token.js';
import { listHeldEvents } from './list-held-events.js';
import { editHeldEvent } from './edit-held-event.js';
import { forwardHeldEvent } from './forward-held-event.js';
import { dismissHeldEvent } from './dismiss-held-event.js';
import { resetCircuitBreaker } from '../tokens/reset-circuit-breaker.js';
import { resetCircuitBreakerAsOperator } from '../tokens/reset-circuit-breaker-as-operator.js';

export const MODERATION_AGENT_OPERATIONS: readonly Operation<any, any, any>[] = [
  issueAdminModerationToken,
  listHeldEvents,
  editHeldEvent,
  forwardHeldEvent,
  dismissHeldEvent,
  resetCircuitBreaker,
];
export const MODERATION_OPERATOR_OPERATIONS: readonly Operation<any, any, any>[] = [createModerationToken, resetCircuitBreakerAsOperator];
