// What open inboxes (WatchInbox) learn of after the caller's commit (the inbox feed):
//  - a new inbox row: addNotification (notify.ts) plus the feed, for operations that add a
//    notification (a forward of a held event, a task assignment, a suspended token's notice); with
//    plain addNotification the row appears in the web app only at its next list;
//  - a change of the user's credentials (announceAccessChanged), which ends streams no longer valid.
import type { EntityManager } from '@mikro-orm/core';
import type { OpContext } from '../context.js';
import type { Notification } from './inbox.entity.js';
import { addNotification, type NotificationInput } from './notify.js';

export function addAnnouncedNotification(ctx: Pick<OpContext, 'afterCommit' | 'ports'>, em: EntityManager, now: Date, input: NotificationInput): Notification {
  const n = addNotification(em, now, input);
  ctx.afterCommit(() => ctx.ports.inboxFeed.changed(n.userId, { notificationIds: [n.id] }));
  return n;
}

/**
 * The user's credentials changed (a session ended, an agent token revoked, the user offboarded):
 * after the commit, the user's open streams check theirs again and end if they are no longer valid.
 */
export function announceAccessChanged(ctx: Pick<OpContext, 'afterCommit' | 'ports'>, userId: string): void {
  ctx.afterCommit(() => ctx.ports.inboxFeed.changed(userId, { access: true }));
}
