// Proto <-> domain JSON shapes. The proto request becomes the same snake_case object the REST
// surface sends, so the one validator sees identical input.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { InboundEvent } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import { DeliverySchema, type Delivery } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import type { DeliveryView } from '../../domain/events/delivery.view.js';

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export function inboundEventToJson(ev: InboundEvent | undefined): Record<string, unknown> {
  if (!ev) return {};
  return defined({
    spec_version: ev.specVersion,
    event_id: ev.eventId,
    event_type: ev.eventType,
    severity: ev.severity,
    title: ev.title,
    occurred_at: ev.occurredAt,
    summary: ev.summary,
    markdown_body: ev.markdownBody,
    markdown_body_rendering: ev.markdownBodyRendering,
    external_url: ev.externalUrl,
    external_status: ev.externalStatus,
    actor: ev.actor ? defined({ email: ev.actor.email, name: ev.actor.name }) : undefined,
    labels: Object.keys(ev.labels).length > 0 ? { ...ev.labels } : undefined,
    actions: ev.actions.length > 0 ? ev.actions.map((a) => defined({ label: a.label, action_type: a.actionType, url: a.url, webhook_url: a.webhookUrl })) : undefined,
    recipient_hint: ev.recipientHint ? defined({ email: ev.recipientHint.email, user_id: ev.recipientHint.userId, display_hint: ev.recipientHint.displayHint }) : undefined,
    recipient: ev.recipient ? { type: ev.recipient.type, value: ev.recipient.value } : undefined,
    project_slug: ev.projectSlug,
    tone: ev.tone,
    locale: ev.locale,
  });
}

export function deliveryToProto(d: DeliveryView): Delivery {
  return create(DeliverySchema, {
    deliveryId: d.deliveryId,
    eventType: d.eventType,
    severity: d.severity,
    tone: d.tone,
    title: d.title,
    summary: d.summary,
    externalUrl: d.externalUrl,
    externalStatus: d.externalStatus,
    occurredAt: timestampFromDate(new Date(d.occurredAt)),
    createdAt: timestampFromDate(new Date(d.createdAt)),
    resolvedAt: d.resolvedAt === null ? undefined : timestampFromDate(new Date(d.resolvedAt)),
    resolutionNote: d.resolutionNote ?? undefined,
    fireCount: d.fireCount,
    deduped: d.deduped,
    ok: d.ok,
    pushed: d.pushed,
    degraded: d.degraded,
    requestId: d.requestId,
    deprecation: d.deprecation,
    locale: d.locale,
    recipientUserId: d.recipientUserId,
    projectId: d.projectId ?? undefined,
    supplements: d.supplements.map((s) => ({ id: s.id, markdownBody: s.markdownBody, createdAt: timestampFromDate(new Date(s.createdAt)) })),
  });
}
