// Notification shapes the agent tools return (SPEC C: list_inbox, get_notification).
import { z } from 'zod';
import type { NotificationRow } from './inbox.repository.js';
import type { BriefItemRow } from './inbox-view.repository.js';
import { iso } from '../timestamps.js';
import { ITEM_STATES } from './inbox.limits.js';

export const NOTIFICATION_TYPES = ['task', 'review', 'meeting', 'system'] as const;

export const NotificationActor = z.object({ userId: z.uuid(), email: z.string(), name: z.string() });

export const InboxItem = z.object({
  id: z.uuid(),
  type: z.string(),
  title: z.string(),
  summary: z.string().nullable(),
  read: z.boolean(),
  createdAt: z.iso.datetime({ offset: true }),
  actor: NotificationActor.optional(),
  targetUrl: z.string().optional(),
  // Where the row is (`inbox`, `snoozed`, `done`), and until when it sleeps.
  state: z.enum(ITEM_STATES),
  snoozedUntil: z.iso.datetime({ offset: true }).nullable(),
  // Set when the notification is an inbound event's delivery.
  deliveryId: z.uuid().optional(),
  eventType: z.string().optional(),
  severity: z.string().optional(),
  externalStatus: z.string().optional(),
  fireCount: z.number().int().min(1).optional(),
});
export type InboxItem = z.infer<typeof InboxItem>;

export const NotificationDetail = z.object({
  id: z.uuid(),
  type: z.string(),
  title: z.string(),
  summary: z.string().nullable(),
  body: z.string().nullable(),
  read: z.boolean(),
  readAt: z.iso.datetime({ offset: true }).nullable(),
  createdAt: z.iso.datetime({ offset: true }),
  updatedAt: z.iso.datetime({ offset: true }),
  actor: NotificationActor.nullable(),
  targetUrl: z.string().nullable(),
  deliveryId: z.uuid().nullable(),
  tags: z.array(z.string()),
  state: z.enum(ITEM_STATES),
  snoozedUntil: z.iso.datetime({ offset: true }).nullable(),
  doneAt: z.iso.datetime({ offset: true }).nullable(),
  eventType: z.string().optional(),
  severity: z.string().optional(),
  externalStatus: z.string().optional(),
  fireCount: z.number().int().min(1).optional(),
});
export type NotificationDetail = z.infer<typeof NotificationDetail>;

function actorOf(r: Pick<NotificationRow, 'actor_user_id' | 'actor_email' | 'actor_name'>): z.infer<typeof NotificationActor> | null {
  // The actor is display data: a row whose actor user no longer exists shows no actor.
  if (!r.actor_user_id || r.actor_email === null) return null;
  return { userId: r.actor_user_id, email: r.actor_email, name: r.actor_name ?? '' };
}

type EventFields = Pick<BriefItemRow, 'delivery_id' | 'event_type' | 'severity' | 'external_status' | 'fire_count'>;

/** The event fields an agent sees (rows that are inbound events only). */
function eventFieldsOf(r: EventFields): Pick<InboxItem, 'deliveryId' | 'eventType' | 'severity' | 'externalStatus' | 'fireCount'> {
  if (r.delivery_id === null || r.event_type === null) return {};
  const out: ReturnType<typeof eventFieldsOf> = { deliveryId: r.delivery_id, eventType: r.event_type, fireCount: Number(r.fire_count ?? 1) };
  if (r.severity !== null) out.severity = r.severity;
  if (r.external_status !== null) out.externalStatus = r.external_status;
  return out;
}

export function toInboxItem(r: BriefItemRow): InboxItem {
  const item: InboxItem = {
    id: r.id,
    type: r.type,
    title: r.title,
    summary: r.summary,
    read: r.read_at !== null,
    createdAt: iso(r.created_at),
    state: r.state,
    snoozedUntil: r.snoozed_until === null ? null : iso(r.snoozed_until),
    ...eventFieldsOf(r),
  };
  const actor = actorOf(r);
  if (actor) item.actor = actor;
  if (r.target_url) item.targetUrl = r.target_url;
  return item;
}

export function toNotificationDetail(r: NotificationRow): NotificationDetail {
  return {
    id: r.id,
    type: r.type,
    title: r.title,
    summary: r.summary,
    body: r.body,
    read: r.read_at !== null,
    readAt: r.read_at === null ? null : iso(r.read_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    actor: actorOf(r),
    targetUrl: r.target_url,
    deliveryId: r.delivery_id,
    tags: Array.isArray(r.tags) ? r.tags : [],
    state: r.state,
    snoozedUntil: r.snoozed_until === null ? null : iso(r.snoozed_until),
    doneAt: r.done_at === null ? null : iso(r.done_at),
    ...(r.delivery_id === null ? {} : eventFieldsOf({ ...r, delivery_id: r.delivery_id })),
  };
}
