// The live tool roster (agent protocol 1.22, "Live now"). tools/list shows each
// token only the tools its scopes allow.
import { getNotificationTool } from './get-notification.js';
import { listInboxTool } from './list-inbox.js';
import { markAllNotificationsReadTool } from './mark-all-notifications-read.js';
import { markNotificationReadTool } from './mark-notification-read.js';
import { markNotificationsDoneTool } from './mark-notifications-done.js';
import { moveNotificationsToInboxTool } from './move-notifications-to-inbox.js';
import { snoozeNotificationTool } from './snooze-notification.js';
import { pingTool } from './ping.js';
import { toListing, type ToolDefinition, type ToolListing } from './tool.js';
import { whoamiTool } from './whoami.js';
import { DOC_TOOLS } from './docs/index.js';
import { approveTeamSupportRequestTool } from './approve-team-support-request.js';
import { assignCatalogToEmployeeTool } from './assign-catalog-to-employee.js';
import { broadcastEventTool } from './broadcast-event.js';
import { catalogItemCreateTool } from './catalog-item-create.js';
import { catalogItemDeleteTool } from './catalog-item-delete.js';
import { catalogItemListTool } from './catalog-item-list.js';
import { catalogItemUpdateTool } from './catalog-item-update.js';
import { createTeamSupportRequestOnBehalfTool } from './create-team-support-request-on-behalf.js';
import { inviteUserTool } from './invite-user.js';
import { issueAdminToolsClaimTokenTool } from './issue-admin-tools-claim-token.js';
import { issuePersonalInboundTokenTool } from './issue-personal-inbound-token.js';
import { listApprovalsForUserTool } from './list-approvals-for-user.js';
import { listInboundTokensTool } from './list-inbound-tokens.js';
import { listPendingTeamSupportRequestsTool } from './list-pending-team-support-requests.js';
import { resolveInboundEventTool } from './resolve-inbound-event.js';
import { revokeAdminTokenTool } from './revoke-admin-token.js';
import { revokeCatalogApprovalTool } from './revoke-catalog-approval.js';
import { revokePersonalTokenTool } from './revoke-personal-token.js';
import { searchUserByUsernameTool } from './search-user-by-username.js';
import { supplementInboundEventTool } from './supplement-inbound-event.js';
import { TASK_TOOLS } from './tasks/index.js';
import { FEEDBACK_TOOLS } from './feedback/index.js';
import { REPOSITORY_TOOLS } from './repositories/index.js';
import { SEARCH_TOOLS } from './search/index.js';
import { MODERATION_TOOLS } from './moderation/index.js';

export const TOOLS: readonly ToolDefinition[] = [
  whoamiTool,
  pingTool,
  listInboxTool,
  getNotificationTool,
  markNotificationReadTool,
  markNotificationsDoneTool,
  moveNotificationsToInboxTool,
  snoozeNotificationTool,
  markAllNotificationsReadTool,
  issuePersonalInboundTokenTool,
  revokePersonalTokenTool,
  revokeAdminTokenTool,
  issueAdminToolsClaimTokenTool,
  listInboundTokensTool,
  resolveInboundEventTool,
  supplementInboundEventTool,
  broadcastEventTool,
  assignCatalogToEmployeeTool,
  revokeCatalogApprovalTool,
  approveTeamSupportRequestTool,
  createTeamSupportRequestOnBehalfTool,
  listPendingTeamSupportRequestsTool,
  listApprovalsForUserTool,
  catalogItemCreateTool,
  catalogItemListTool,
  catalogItemUpdateTool,
  catalogItemDeleteTool,
  inviteUserTool,
  searchUserByUsernameTool,
  ...DOC_TOOLS,
  ...TASK_TOOLS,
  ...FEEDBACK_TOOLS,
  ...REPOSITORY_TOOLS,
  ...SEARCH_TOOLS,
  ...MODERATION_TOOLS,
];

export const TOOLS_BY_NAME: ReadonlyMap<string, { def: ToolDefinition; listing: ToolListing }> = new Map(
  TOOLS.map((t) => [t.name, { def: t, listing: toListing(t) }]),
);
