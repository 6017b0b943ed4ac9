// What the two publish endpoints (REST v1 POST /api/v1/events and the older inbound endpoint,
// http/route-legacy.ts) declare alike: the event body component and the operation, mapping,
// statuses and 411 hook. In http/ because two surfaces share it (transports import no other transport).
import type { FastifyRequest } from 'fastify';
import { type InboundEvent, InboundEventSchema } from '../../domain/events/event-validation.rules.js';
import { publishEvent, type PublishResult } from '../../domain/events/publish-event.js';
import { requireContentLength } from './json-body.js';
import type { OperationRoute } from './route-declaration.js';

/** The event body of both publish endpoints (REST v1 and the older one): one component. */
export const InboundEventBody = {
  name: 'InboundEvent',
  schema: InboundEventSchema,
  required: true,
  description: 'An event (spec_version "2"). `target_email` is also accepted: it only serves the 422 inbound-no-approval probe and is never stored.',
};

/** What both publish endpoints (REST v1 and the older one) share: operation, mapping, statuses, the 411 hook, extra codes. */
export const PUBLISH_EVENT_CORE = {
  errors: { forbidden: ['cross_project_blocked'], unprocessable: ['inbound_no_approval'] },
  onRequest: requireContentLength,
  onRequestErrors: { length_required: ['length_required'] },
  op: publishEvent,
  input: (req: FastifyRequest) => req.body,
  status: (o: PublishResult) => (o.created ? 202 : 200),
  reply: (o: PublishResult) => o.delivery,
} satisfies Partial<OperationRoute<InboundEvent, PublishResult>>;
