import { defineEntity, p } from '@mikro-orm/core';
import { EVENT_LIMITS } from '../events/event.limits.js';

/** An inbox row. Inbound deliveries have exactly one (unique delivery_id). */
export const NotificationSchema = defineEntity({
  name: 'Notification',
  tableName: 'notifications',
  // Schema lives in the migrations; this mirrors them (Migration20261122120000InboxCounters also
  // adds the inbox_counters table and its triggers).
  // Migration20261128200000InboxTriage: lists walk (user_id, state, coalesce(listed_at, created_at), id).
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    /** `task`, `review`, `meeting` or `system` (inbound events are `system`). */
    type: p.string().length(20),
    title: p.string().length(EVENT_LIMITS.titleMax),
    summary: p.string().length(EVENT_LIMITS.summaryMax).nullable(),
    body: p.text().nullable(),
    deliveryId: p.uuid().nullable().unique(),
    actorUserId: p.uuid().nullable(),
    targetUrl: p.string().length(EVENT_LIMITS.urlMax).nullable(),
    tags: p.json<string[]>().nullable(),
    readAt: p.datetime().nullable(),
    /** `inbox`, `snoozed` (until snoozedUntil) or `done` (since doneAt). */
    state: p.string().length(8).default('inbox'),
    snoozedUntil: p.datetime().nullable(),
    doneAt: p.datetime().nullable(),
    /** The row's place in the lists when not its creation (a snooze that came back). */
    listedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class Notification extends NotificationSchema.class {}
NotificationSchema.setClass(Notification);
