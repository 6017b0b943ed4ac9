// InboxService.MarkUnread (scope write:inbox): marks 1-500 of the caller's notifications unread
// again, whatever their view (the web app's `u` on a read item, and the undo of a mark read). Rows
// already unread are not counted. Any id that is not the caller's answers not_found and changes
// nothing. Open inboxes (WatchInbox) are told after the commit; the counters follow through their
// triggers. Answers how many changed and the caller's unread count after the change.
import { z } from 'zod';
import { INBOX_AUDIT } from './inbox.audit.js';
import { markOwnRowsUnread } from './inbox.repository.js';
import { unreadCountOf } from './inbox-view.repository.js';
import { defineBulkTriage } from './triage.shared.js';

export const MarkNotificationsUnreadOutput = z.object({ updatedCount: z.number().int().min(0), unreadCount: z.number().int().min(0) });
export type MarkNotificationsUnreadResult = z.infer<typeof MarkNotificationsUnreadOutput>;

export const markNotificationsUnread = defineBulkTriage({
  name: 'inbox.mark_unread',
  audit: INBOX_AUDIT.notificationsUnread,
  change: markOwnRowsUnread,
  more: async (em, userId) => ({ unreadCount: await unreadCountOf(em, userId) }),
});
