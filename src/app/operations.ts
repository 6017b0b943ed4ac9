// Name -> operation registries: operator operations (the CLI, locally or through the embedded
// server's socket) and agent operations (the MCP tools).
import type { Operation } from '../domain/context.js';
import { bootstrap } from '../domain/users/bootstrap.js';
import { createUser } from '../domain/users/create-user.js';
import { createAgentToken } from '../domain/tokens/create-agent-token.js';
import { createPersonalToken } from '../domain/tokens/create-personal-token.js';
import { createProject } from '../domain/projects/create-project.js';
import { createToolsToken } from '../domain/tokens/create-tools-token.js';
import { applyForCatalogItem } from '../domain/catalog/apply-for-catalog-item.js';
import { whoami } from '../domain/tokens/whoami.js';
import { agentPing } from '../domain/tokens/ping-agent-token.js';
import { listInbox } from '../domain/inbox/list-inbox.js';
import { getNotification } from '../domain/inbox/get-notification.js';
import { markNotificationRead } from '../domain/inbox/mark-notification-read.js';
import { markAllNotificationsRead } from '../domain/inbox/mark-all-notifications-read.js';
import { markNotificationsDone } from '../domain/inbox/mark-notifications-done.js';
import { moveNotificationsToInbox } from '../domain/inbox/move-notifications-to-inbox.js';
import { snoozeNotification } from '../domain/inbox/snooze-notification.js';
import { issuePersonalInboundToken } from '../domain/tokens/issue-personal-inbound-token.js';
import { revokePersonalToken } from '../domain/tokens/revoke-personal-token.js';
import { revokeAdminToken } from '../domain/tokens/revoke-admin-token.js';
import { issueAdminToolsClaimToken } from '../domain/tokens/issue-admin-tools-claim-token.js';
import { listInboundTokens } from '../domain/tokens/list-inbound-tokens.js';
import { resolveInboundEvent } from '../domain/events/resolve-inbound-event.js';
import { supplementInboundEvent } from '../domain/events/supplement-inbound-event.js';
import { broadcastEvent } from '../domain/events/broadcast-event.js';
import { assignCatalogToEmployee } from '../domain/catalog/assign-catalog-to-employee.js';
import { adminRevokeCatalogApproval } from '../domain/catalog/revoke-catalog-approval-by-agent.js';
import { approveTeamSupportRequest } from '../domain/catalog/approve-team-support-request.js';
import { createTeamSupportRequestOnBehalf } from '../domain/catalog/create-team-support-request-on-behalf.js';
import { listPendingTeamSupportRequests } from '../domain/catalog/list-pending-team-support-requests.js';
import { listApprovalsForUser } from '../domain/catalog/list-approvals-for-user.js';
import { catalogItemCreate } from '../domain/catalog/create-catalog-item-by-agent.js';
import { catalogItemList } from '../domain/catalog/list-catalog-items-by-agent.js';
import { catalogItemUpdate } from '../domain/catalog/update-catalog-item-by-agent.js';
import { catalogItemDelete } from '../domain/catalog/delete-catalog-item-by-agent.js';
import { inviteUser } from '../domain/users/invite-user.js';
import { searchUserByUsername } from '../domain/users/search-user-by-username.js';
import { startConnectSessionForUser } from '../domain/tokens/start-connect-session-for-user.js';
import { TASK_AGENT_OPERATIONS, TASK_OPERATOR_OPERATIONS } from '../domain/tasks/task-operations.js';
import { DOC_OPERATIONS } from '../domain/docs/doc-operations.js';
import { FEEDBACK_OPERATIONS } from '../domain/feedback/feedback-operations.js';
import { REPOSITORY_OPERATIONS, REPOSITORY_OPERATOR_OPERATIONS } from '../domain/repositories/repository-operations.js';
import { SEARCH_OPERATIONS, SEARCH_OPERATOR_OPERATIONS } from '../domain/search/search-operations.js';
import { MODERATION_AGENT_OPERATIONS, MODERATION_OPERATOR_OPERATIONS } from '../domain/moderation/moderation-operations.js';
import { WEB_OPERATOR_OPERATIONS } from '../domain/web/web-operations.js';

export const OPERATOR_OPERATIONS: Record<string, Operation<any, any, any>> = Object.fromEntries(
  [
    bootstrap,
    createUser,
    createAgentToken,
    createPersonalToken,
    createProject,
    createToolsToken,
    applyForCatalogItem,
    startConnectSessionForUser,
    ...TASK_OPERATOR_OPERATIONS,
    ...MODERATION_OPERATOR_OPERATIONS,
    ...SEARCH_OPERATOR_OPERATIONS,
    ...REPOSITORY_OPERATOR_OPERATIONS,
    ...WEB_OPERATOR_OPERATIONS,
  ].map((op) => [op.name, op]),
);

/** Agent-token operations (the live MCP tools); each MCP tool wraps exactly one of these. */
export const AGENT_OPERATIONS: Record<string, Operation<any, any, any>> = Object.fromEntries(
  [
    whoami,
    agentPing,
    listInbox,
    getNotification,
    markNotificationRead,
    markAllNotificationsRead,
    markNotificationsDone,
    moveNotificationsToInbox,
    snoozeNotification,
    // The account, token, event, catalog and admin tools (SPEC C).
    issuePersonalInboundToken,
    revokePersonalToken,
    revokeAdminToken,
    issueAdminToolsClaimToken,
    listInboundTokens,
    resolveInboundEvent,
    supplementInboundEvent,
    broadcastEvent,
    assignCatalogToEmployee,
    adminRevokeCatalogApproval,
    approveTeamSupportRequest,
    createTeamSupportRequestOnBehalf,
    listPendingTeamSupportRequests,
    listApprovalsForUser,
    catalogItemCreate,
    catalogItemList,
    catalogItemUpdate,
    catalogItemDelete,
    inviteUser,
    searchUserByUsername,
    ...TASK_AGENT_OPERATIONS,
    ...DOC_OPERATIONS,
    ...FEEDBACK_OPERATIONS,
    ...REPOSITORY_OPERATIONS,
    ...SEARCH_OPERATIONS,
    ...MODERATION_AGENT_OPERATIONS,
  ].map((op) => [op.name, op]),
);
