// Notification shapes the agent tools return (SPEC C: list_inbox, get_notification).
import { z } from 'zod';
import type { InboxListRow, NotificationRow } from './inbox.repository.js';
import { iso } from '../timestamps.js';

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
});
export type NotificationDetail = z.infer<typeof NotificationDetail>;

function actorOf(r: InboxListRow): z.infer<typeof NotificationActor> | null {
  // The actor is display data: a row whose actor user no longer exists shows no actor.
  if (!r.actor_user_id || r.actor_email === null) return null;
  return { userId: r.actor_user_id, email: r.actor_email, name: r.actor_name ?? '' };
}

export function toInboxItem(r: InboxListRow): InboxItem {
  const item: InboxItem = { id: r.id, type: r.type, title: r.title, summary: r.summary, read: r.read_at !== null, createdAt: iso(r.created_at) };
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
  };
}
