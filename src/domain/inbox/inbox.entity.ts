import { defineEntity, p, Type } from '@mikro-orm/core';
import { pgArray } from '../sql-hints.js';
import { EVENT_LIMITS } from '../events/event.limits.js';

/**
 * notifications.search_doc written from its lexemes (search-doc.rules.ts searchLexemes): the value
 * goes as a text[] literal into `array_to_tsvector`. Never read back (the property is lazy).
 */
export class SearchDocType extends Type<string[] | null, string | null> {
  override convertToDatabaseValue(value: string[] | null): string | null {
    return value === null ? null : pgArray(value);
  }
  override convertToJSValue(): string[] | null {
    return null;
  }
  override convertToDatabaseValueSQL(key: string): string {
    return `array_to_tsvector(${key}::text[])`;
  }
  override getColumnType(): string {
    return 'tsvector';
  }
}

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
    /** Migration20261129100000InboxSearch: what a search finds the row by (written, never read). */
    searchDoc: p.type(SearchDocType).nullable().lazy(),
  },
});
export class Notification extends NotificationSchema.class {}
NotificationSchema.setClass(Notification);
