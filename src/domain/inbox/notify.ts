import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { Notification } from './inbox.entity.js';
import { EVENT_LIMITS } from '../events/event.limits.js';
import { searchLexemes } from './search-doc.rules.js';

export interface NotificationInput {
  userId: string;
  type?: 'task' | 'review' | 'meeting' | 'system';
  title: string;
  summary?: string | null;
  body?: string | null;
  targetUrl?: string | null;
  actorUserId?: string | null;
  /** The actor's display name, when the caller has it: the row is found by it too. */
  actorName?: string | null;
  tags?: string[] | null;
}

/** Adds an inbox row in the caller's unit of work (never carries secrets). */
export function addNotification(em: EntityManager, now: Date, n: NotificationInput): Notification {
  return em.create(Notification, {
    id: randomUUID(),
    userId: n.userId,
    type: n.type ?? 'system',
    title: n.title.slice(0, EVENT_LIMITS.titleMax),
    summary: n.summary ?? null,
    body: n.body ?? null,
    deliveryId: null,
    actorUserId: n.actorUserId ?? null,
    targetUrl: n.targetUrl ?? null,
    tags: n.tags ?? null,
    createdAt: now,
    updatedAt: now,
    searchDoc: searchLexemes({ userId: n.userId, title: n.title, summary: n.summary, actorName: n.actorName }),
  });
}
