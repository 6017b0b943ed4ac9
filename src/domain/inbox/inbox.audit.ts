// Audit keys of inbox writes. The summary names the tool and the ids involved, never a token value
// or a notification body.
export const INBOX_AUDIT = {
  notificationRead: 'inbox.notification.read',
  notificationsUnread: 'inbox.notification.unread',
  allNotificationsRead: 'inbox.notification.read_all',
  done: 'inbox.notification.done',
  movedToInbox: 'inbox.notification.to_inbox',
  snoozed: 'inbox.notification.snoozed',
} as const;
