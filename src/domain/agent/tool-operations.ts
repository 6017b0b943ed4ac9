// The agent operations behind the account, token, event and admin tools (SPEC C), for the
// registry in app/operations.ts. Each MCP tool wraps exactly one of these.
import type { Operation } from '../context.js';
import { inviteUser } from '../users/invite-user.js';
import { searchUserByUsername } from '../users/search-user-by-username.js';
import { approveTeamSupportRequest } from '../catalog/approve-team-support-request.js';
import { assignCatalogToEmployee } from '../catalog/assign-catalog-to-employee.js';
import { broadcastEvent } from '../events/broadcast-event.js';
import { catalogItemCreate } from '../catalog/create-catalog-item-by-agent.js';
import { catalogItemDelete } from '../catalog/delete-catalog-item-by-agent.js';
import { catalogItemList } from '../catalog/list-catalog-items-by-agent.js';
import { catalogItemUpdate } from '../catalog/update-catalog-item-by-agent.js';
import { createTeamSupportRequestOnBehalf } from '../catalog/create-team-support-request-on-behalf.js';
import { issueAdminToolsClaimToken } from '../tokens/issue-admin-tools-claim-token.js';
import { listApprovalsForUser } from '../catalog/list-approvals-for-user.js';
import { listInboundTokens } from '../tokens/list-inbound-tokens.js';
import { listPendingTeamSupportRequests } from '../catalog/list-pending-team-support-requests.js';
import { resolveInboundEvent } from '../events/resolve-inbound-event.js';
import { adminRevokeCatalogApproval } from '../catalog/revoke-catalog-approval-by-agent.js';
import { supplementInboundEvent } from '../events/supplement-inbound-event.js';
import { issuePersonalInboundToken } from '../tokens/issue-personal-inbound-token.js';
import { revokeAdminToken } from '../tokens/revoke-admin-token.js';
import { revokePersonalToken } from '../tokens/revoke-personal-token.js';

export const AGENT_TOOL_OPERATIONS: readonly Operation<any, any, any>[] = [
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
];
