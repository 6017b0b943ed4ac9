// `mark_notifications_done` (scope write:inbox; also InboxService.MarkDone): moves 1-500 of the
// caller's rows to Done (and read). Rows already done stay as they are and are not counted. Any
// id that is not the caller's answers not_found and changes nothing.
import { INBOX_AUDIT } from './inbox.audit.js';
import { markOwnRowsDone } from './inbox-state.repository.js';
import { defineBulkTriage } from './triage.shared.js';

export const markNotificationsDone = defineBulkTriage({
  name: 'inbox.mark_done',
  tool: 'mark_notifications_done',
  audit: INBOX_AUDIT.done,
  change: markOwnRowsDone,
});
