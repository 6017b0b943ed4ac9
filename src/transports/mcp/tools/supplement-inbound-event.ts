import { supplementInboundEvent, SupplementInboundEventOutput } from '../../../domain/events/supplement-inbound-event.js';
import type { ToolDefinition } from './tool.js';
import { EVENT_LIMITS } from '../../../domain/events/event.limits.js';

export const supplementInboundEventTool: ToolDefinition = {
  name: 'supplement_inbound_event',
  title: 'Supplement inbound event',
  description: `Appends a follow-up (markdown_body, 1-${EVENT_LIMITS.toolSupplementMax} chars) to a delivered event; the original text never changes: {ok, deliveryId, supplementId, createdAt}. For the original sender or an admin; any other delivery id answers NOT_FOUND.`,
  operation: supplementInboundEvent,
  output: SupplementInboundEventOutput,
  readOnly: false,
  idempotent: false,
};
