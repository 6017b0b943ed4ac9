import { broadcastEvent, BroadcastEventOutput } from '../../../domain/events/broadcast-event.js';
import type { ToolDefinition } from './tool.js';
import { EVENT_LIMITS } from '../../../domain/events/event.limits.js';

export const broadcastEventTool: ToolDefinition = {
  name: 'broadcast_event',
  title: 'Broadcast event (admin)',
  description: `Sends one event to up to ${EVENT_LIMITS.bulkRecipientsMax} recipients (emails) through a tools-token you own (tools_token_id): {ok, event_id, delivered[{email, deliveryId, deduped, pushed, autoClaimed?} or {email, error, error_envelope}]}. event_type must start with the tools-token's prefix. Without tools_token_id every row is no_token. auto_claim (default true) mints missing personal tokens for approved recipients. event_id_prefix makes retries dedup. Failures carry error_envelope {code, title, detail, field, next_action}. Admin users only.`,
  operation: broadcastEvent,
  output: BroadcastEventOutput,
  readOnly: false,
  idempotent: false,
};
