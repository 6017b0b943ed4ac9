import { resolveInboundEvent, ResolveInboundEventOutput } from '../../../domain/events/resolve-inbound-event.js';
import type { ToolDefinition } from './tool.js';

export const resolveInboundEventTool: ToolDefinition = {
  name: 'resolve_inbound_event',
  title: 'Resolve inbound event',
  description:
    'Marks a delivered event resolved (terminal stamp, no re-push): {ok, deliveryId, resolved, resolvedAt?, resolutionNote?}. A repeat keeps the first stamp. For the original sender (the owner of the token that delivered it) or an admin; any other delivery id answers NOT_FOUND.',
  operation: resolveInboundEvent,
  output: ResolveInboundEventOutput,
  readOnly: false,
};
