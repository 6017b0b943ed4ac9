// REST v1 event routes, declared once (registered and documented from here): map -> call -> map.
// No business rules here.
import type { z } from 'zod';
import { BulkEventRequestSchema, BulkEventResponseSchema, publishBulk } from '../../domain/events/publish-bulk.js';
import { getDelivery } from '../../domain/events/get-delivery.js';
import { DeliveryTraceSchema, getDeliveryTrace } from '../../domain/events/get-delivery-trace.js';
import { ResolveDeliveryInput, resolveDelivery } from '../../domain/events/resolve-delivery.js';
import { SupplementDeliveryInput, supplementDelivery } from '../../domain/events/supplement-delivery.js';
import { EventTypesResponseSchema, ListEventTypesInput, listEventTypes } from '../../domain/events/list-event-types.js';
import { DeliveryViewSchema } from '../../domain/events/delivery.view.js';
import { withPathParams } from '../http/invoke.js';
import { route, type RouteDecl } from '../http/route-declaration.js';
import { InboundEventBody, PUBLISH_EVENT_CORE } from '../http/publish-route-core.js';
import { EVENT_LIMITS } from '../../domain/events/event.limits.js';
import { TRACE_REFIRES_MAX } from '../../domain/events/delivery-trace.rules.js';

type IdParams = { deliveryId: string };
const deliveryId = (req: { params: unknown }) => (req.params as IdParams).deliveryId;
const DELIVERY_ID = { deliveryId: { type: 'string', format: 'uuid', description: 'deliveryId of a Delivery this token sent' } };

export const Delivery = { name: 'Delivery', schema: DeliveryViewSchema };
const omitKey = (s: z.ZodObject, key: string) => s.omit({ [key]: true } as never);
const TOOLS = 'Admin tools-token (svc-tools-...) only: a tools-token whose owner is not an admin gets 403 forbidden_admin_only.';
const SENDER = 'Only the token that sent the delivery may use it (403 not_sender); an unknown id is 404.';

export const EVENT_ROUTES: readonly RouteDecl[] = [
  route({
    method: 'POST',
    path: '/api/v1/events',
    tag: 'events',
    operationId: 'publishEvent',
    summary: "Publish one event to the token owner's inbox",
    description:
      'Personal (or moderation) token. Idempotent on (token, event_id): a repeat answers 200 with `deduped` true and the same deliveryId. ' +
      "`event_type` must start with the token's allowed prefix (400 namespace_mismatch). An explicit Content-Length is required (411 on chunked bodies). " +
      "Over the token's daily limit the event is accepted with 200 and `degraded` true (inbox row only). " +
      'Optional 422 inbound-no-approval: when the personal token is unknown, an admin-owned tool may send body key `target_email` and header ' +
      "`X-Caller-Tools-Token` (its admin tools-token); if that employee exists but has no approved request for the tool's catalog row, the answer is 422 " +
      'with `target_email` and `catalog_slug`; any failed precondition keeps the plain 401.',
    security: 'bearer',
    body: InboundEventBody,
    headers: {
      'X-Caller-Tools-Token': 'An admin tools-token (svc-tools-...), read only for the 422 inbound-no-approval probe when the bearer token is unknown.',
    },
    success: [
      { status: 202, description: 'Created; the recipient is notified', body: Delivery },
      {
        status: 200,
        description: 'A repeat of (token, event_id): deduped (fireCount counts the sends); or accepted over the daily limit (`degraded` true)',
        body: Delivery,
      },
    ],
    ...PUBLISH_EVENT_CORE,
  }),
  route({
    method: 'POST',
    path: '/api/v1/events/bulk',
    tag: 'events',
    operationId: 'publishBulk',
    summary: `Fan one template event out to 1-${EVENT_LIMITS.bulkRecipientsMax} recipients`,
    description:
      `${TOOLS} Each recipient gets its own delivery under its own claimed personal token (dedup per recipient and event_id). ` +
      'Failures are per row (`error`: no_token, no_approved_request, user_not_found, user_inactive, token_disabled, cross_project_blocked, ' +
      'auto_claim_lookup_failed, circuit_open). Inline auto-claims commit on their own; all deliveries of one request are written by one statement. ' +
      'A `project_slug` that names no project, or an archived one, refuses the whole request (403 cross_project_blocked with `reason`).',
    security: 'bearer',
    body: { name: 'BulkEventRequest', schema: BulkEventRequestSchema, required: true },
    success: [{ status: 202, description: 'One row per recipient', body: { name: 'BulkEventResponse', schema: BulkEventResponseSchema } }],
    errors: { forbidden: ['forbidden_admin_only', 'cross_project_blocked'] },
    op: publishBulk,
    input: (req) => req.body,
    status: 202,
  }),
  route({
    method: 'GET',
    path: '/api/v1/events/{deliveryId}',
    tag: 'events',
    operationId: 'getDelivery',
    summary: 'Read back a delivery with its supplements',
    description: SENDER,
    security: 'bearer',
    params: DELIVERY_ID,
    success: [{ status: 200, description: 'The delivery', body: Delivery }],
    errors: { forbidden: ['not_sender'], not_found: ['not_found'] },
    op: getDelivery,
    input: (req) => ({ delivery_id: deliveryId(req) }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/events/{deliveryId}/trace',
    tag: 'events',
    operationId: 'getDeliveryTrace',
    summary: 'What the service did with a delivery, oldest first',
    description:
      'Only the token that sent the delivery; any other token, like an unknown id, gets 404. Counted as one read (like the read-back). ' +
      `Steps: accepted, refired (the latest ${TRACE_REFIRES_MAX}; fireCount counts them all), inbox_row, held_for_moderation, forwarded, ` +
      'degraded (`limit`: token_daily or user_daily), per nudge with `channel`: nudge_sent, nudge_failed (`attempt`, `status` or `error`, ' +
      '`nextRetryAt`), nudge_dead, nudge_held (`reason`: quiet_hours, threshold, preference, no_channel, degraded), resolved, supplemented, ' +
      "action_clicked (`actionIndex`, `actionLabel`, the receiver's `status` or `error`). Never what the person did (no read, seen or done times).",
    security: 'bearer',
    params: DELIVERY_ID,
    success: [{ status: 200, description: 'The trace', body: { name: 'DeliveryTrace', schema: DeliveryTraceSchema } }],
    errors: { not_found: ['not_found'] },
    op: getDeliveryTrace,
    input: (req) => ({ delivery_id: deliveryId(req) }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/events/{deliveryId}/resolve',
    tag: 'events',
    operationId: 'resolveDelivery',
    summary: 'Stamp a delivery resolved',
    description: `${SENDER} Idempotent: resolving a resolved delivery keeps the first resolution. The body is optional.`,
    security: 'bearer',
    params: DELIVERY_ID,
    body: { name: 'ResolveRequest', schema: omitKey(ResolveDeliveryInput, 'delivery_id'), required: false },
    success: [{ status: 200, description: 'The resolved delivery', body: Delivery }],
    errors: { forbidden: ['not_sender'], not_found: ['not_found'] },
    op: resolveDelivery,
    input: (req) => withPathParams(req.body, { delivery_id: deliveryId(req) }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/events/{deliveryId}/supplement',
    tag: 'events',
    operationId: 'supplementDelivery',
    summary: 'Append a supplement to a delivery',
    description: `${SENDER} Append-only: the original text never changes.`,
    security: 'bearer',
    params: DELIVERY_ID,
    body: { name: 'SupplementRequest', schema: omitKey(SupplementDeliveryInput, 'delivery_id'), required: true },
    success: [{ status: 201, description: 'The delivery with its supplements', body: Delivery }],
    errors: { forbidden: ['not_sender'], not_found: ['not_found'] },
    op: supplementDelivery,
    input: (req) => withPathParams(req.body, { delivery_id: deliveryId(req) }),
    status: 201,
  }),
  route({
    method: 'GET',
    path: '/api/v1/event-types',
    tag: 'introspection',
    operationId: 'listEventTypes',
    summary: `Event types of your integrator (${EVENT_LIMITS.eventTypeWindowDays} days) and the service's internal-os. types`,
    description:
      "Any valid personal, moderation or tools-token. `integrator_slug` (another integrator's types) is for admin tools-tokens only " +
      '(403 forbidden_admin_only); an unknown or archived integrator is 404.',
    security: 'bearer',
    query: ListEventTypesInput,
    success: [{ status: 200, description: 'Event types', body: { name: 'EventTypesResponse', schema: EventTypesResponseSchema } }],
    errors: { forbidden: ['forbidden_admin_only'], not_found: ['not_found'] },
    op: listEventTypes,
    input: (req) => req.query,
  }),
];
