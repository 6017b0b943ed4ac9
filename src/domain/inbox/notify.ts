import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { Notification } from './inbox.entity.js';
import { EVENT_LIMITS } from '../events/event.limits.js';

export interface NotificationInput {
  userId: string;
  type?: 'task' | 'review' | 'meeting' | 'system';
  title: string;
  summary?: string | null;
  body?: string | null;
  targetUrl?: string | null;
  actorUserId?: string | null;
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
  });
}
