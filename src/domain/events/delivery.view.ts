// The Delivery resource (SPEC "Delivery") built from a stored row.
import { z } from 'zod';
import type { SupplementRow } from './events.repository.js';
import type { DeliveryRow } from './event-store.js';
import { EXTERNAL_STATUSES, SEVERITIES, TONES } from './event.limits.js';
import { iso } from '../timestamps.js';

export const SupplementViewSchema = z.strictObject({
  id: z.uuid(),
  markdownBody: z.string(),
  createdAt: z.iso.datetime(),
});
export type SupplementView = z.infer<typeof SupplementViewSchema>;

/** SPEC "Delivery": the response of every event operation. Also feeds the OpenAPI document. */
export const DeliveryViewSchema = z.strictObject({
  deliveryId: z.uuid(),
  eventType: z.string(),
  severity: z.enum(SEVERITIES),
  tone: z.enum(TONES).optional(),
  title: z.string(),
  summary: z.string().optional(),
  externalUrl: z.string().optional(),
  externalStatus: z.enum(EXTERNAL_STATUSES).optional(),
  occurredAt: z.iso.datetime(),
  createdAt: z.iso.datetime(),
  resolvedAt: z.iso.datetime().nullable(),
  resolutionNote: z.string().nullable(),
  fireCount: z.number().int().min(1),
  deduped: z.boolean(),
  ok: z.literal(true),
  pushed: z.boolean(),
  degraded: z.boolean(),
  requestId: z.string(),
  deprecation: z.string().optional(),
  locale: z.string().optional(),
  recipientUserId: z.uuid(),
  projectId: z.uuid().nullable(),
  supplements: z.array(SupplementViewSchema),
});
export type DeliveryView = z.infer<typeof DeliveryViewSchema>;

export const RECIPIENT_HINT_DEPRECATION = 'recipient_hint is deprecated: send recipient {type: "email", value} instead (inbound protocol 2.0, Versioning 4)';

export function toDeliveryView(
  row: DeliveryRow,
  opts: { deduped: boolean; pushed: boolean; degraded?: boolean; requestId: string; supplements?: SupplementRow[] },
): DeliveryView {
  const v: DeliveryView = {
    deliveryId: row.id,
    eventType: row.event_type,
    severity: row.severity as DeliveryView['severity'],
    title: row.title,
    occurredAt: iso(row.occurred_at),
    createdAt: iso(row.created_at),
    resolvedAt: row.resolved_at === null ? null : iso(row.resolved_at),
    resolutionNote: row.resolution_note,
    fireCount: Number(row.fire_count),
    deduped: opts.deduped,
    ok: true,
    pushed: opts.pushed,
    degraded: opts.degraded ?? false,
    requestId: opts.requestId,
    recipientUserId: row.recipient_user_id,
    projectId: row.project_id,
    supplements: (opts.supplements ?? []).map((s) => ({ id: s.id, markdownBody: s.markdown_body, createdAt: iso(s.created_at) })),
  };
  if (row.tone !== null) v.tone = row.tone as DeliveryView['tone'];
  if (row.summary !== null) v.summary = row.summary;
  if (row.external_url !== null) v.externalUrl = row.external_url;
  if (row.external_status !== null) v.externalStatus = row.external_status as DeliveryView['externalStatus'];
  if (row.locale !== null) v.locale = row.locale;
  if (row.recipient_hint !== null && row.recipient_hint !== undefined) v.deprecation = RECIPIENT_HINT_DEPRECATION;
  return v;
}
