import { listPendingTeamSupportRequests, ListPendingTeamSupportRequestsOutput } from '../../../domain/catalog/list-pending-team-support-requests.js';
import type { ToolDefinition } from './tool.js';
import { CATALOG_LIMITS } from '../../../domain/catalog/catalog.limits.js';

export const listPendingTeamSupportRequestsTool: ToolDefinition = {
  name: 'list_pending_team_support_requests',
  title: 'List pending team-support requests (admin)',
  description: `The review queue, oldest first: {items[{request_id, catalog_slug, catalog_name, user_id, email, name, note, requested_at, filed_by_email}]}. Filters: catalog_slug or catalog_id (at most one), email; limit 1-${CATALOG_LIMITS.pendingListMax} (default ${CATALOG_LIMITS.pendingListDefault}). Admin users only.`,
  operation: listPendingTeamSupportRequests,
  output: ListPendingTeamSupportRequestsOutput,
  errorForm: 'structured',
  readOnly: true,
};
