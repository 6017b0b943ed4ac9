// `move_notifications_to_inbox` (scope write:inbox; also InboxService.MoveToInbox): brings 1-500
// of the caller's done or snoozed rows back to the Inbox, at their old place (undoes done and
// snooze). Rows already in the Inbox are not counted. Any id that is not the caller's answers
// not_found and changes nothing.
import { INBOX_AUDIT } from './inbox.audit.js';
import { moveOwnRowsToInbox } from './inbox-state.repository.js';
import { defineBulkTriage } from './triage.shared.js';

export const moveNotificationsToInbox = defineBulkTriage({
  name: 'inbox.move_to_inbox',
  tool: 'move_notifications_to_inbox',
  audit: INBOX_AUDIT.movedToInbox,
  change: moveOwnRowsToInbox,
});
