import { defineEntity, p } from '@mikro-orm/core';
import { EVENT_COLUMNS, EVENT_LIMITS } from './event.limits.js';

/**
 * One delivered event. Unique on (token_id, event_id): the dedup key of the spec.
 * The original title/summary/markdown_body never change; repeats update count, status and
 * the inbox row only.
 */
export const DeliverySchema = defineEntity({
  name: 'Delivery',
  tableName: 'deliveries',
  uniques: [{ properties: ['tokenId', 'eventId'] }],
  indexes: [{ properties: ['integratorId', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    tokenId: p.uuid(),
    integratorId: p.uuid(),
    recipientUserId: p.uuid(),
    projectId: p.uuid().nullable(),
    eventId: p.string().length(EVENT_LIMITS.eventIdMax),
    eventType: p.string().length(EVENT_LIMITS.eventTypeMax),
    severity: p.string().length(EVENT_COLUMNS.severity),
    tone: p.string().length(EVENT_COLUMNS.tone).nullable(),
    title: p.string().length(EVENT_LIMITS.titleMax),
    summary: p.string().length(EVENT_LIMITS.summaryMax).nullable(),
    markdownBody: p.text().nullable(),
    markdownBodyRendering: p.string().length(EVENT_COLUMNS.rendering).nullable(),
    externalUrl: p.string().length(EVENT_LIMITS.urlMax).nullable(),
    externalStatus: p.string().length(EVENT_COLUMNS.externalStatus).nullable(),
    /** When externalStatus took its present value (null before Migration20261128000000ExternalStatusAt). */
    externalStatusAt: p.datetime().nullable(),
    actor: p.json<{ email: string; name?: string }>().nullable(),
    labels: p.json<Record<string, string>>().nullable(),
    actions: p.json<unknown[]>().nullable(),
    recipientHint: p.json<Record<string, string>>().nullable(),
    recipient: p.json<{ type: string; value: string }>().nullable(),
    locale: p.string().length(EVENT_LIMITS.localeMax).nullable(),
    occurredAt: p.datetime(),
    createdAt: p.datetime(),
    lastEventAt: p.datetime(),
    fireCount: p.integer(),
    resolvedAt: p.datetime().nullable(),
    resolutionNote: p.string().length(EVENT_LIMITS.resolutionNoteMax).nullable(),
  },
});
export class Delivery extends DeliverySchema.class {}
DeliverySchema.setClass(Delivery);

/** Append-only follow-up text of a delivery. */
export const DeliverySupplementSchema = defineEntity({
  name: 'DeliverySupplement',
  tableName: 'delivery_supplements',
  indexes: [{ properties: ['deliveryId', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    deliveryId: p.uuid(),
    markdownBody: p.text(),
    createdAt: p.datetime(),
  },
});
export class DeliverySupplement extends DeliverySupplementSchema.class {}
DeliverySupplementSchema.setClass(DeliverySupplement);
