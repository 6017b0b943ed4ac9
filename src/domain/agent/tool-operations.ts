// The agent operations behind the account, token, event and admin tools (SPEC C), for the
// registry in app/operations.ts. Each MCP tool wraps exactly one of these.
import type { Operation } from '../context.js';
import { inviteUser } from '../users/invite-user.js';
import { searchUserByUsername } from '../users/search-user-by-username.js';
import { approveTeamSupportRequest } from './approve-team-support-request.js';
import { assignCatalogToEmployee } from './assign-catalog-to-employee.js';
import { broadcastEvent } from './broadcast-event.js';
import { catalogItemCreate, catalogItemDelete, catalogItemList, catalogItemUpdate } from './catalog-item-tools.js';
import { createTeamSupportRequestOnBehalf } from './create-team-support-request-on-behalf.js';
import { issueAdminToolsClaimToken } from '../tokens/issue-admin-tools-claim-token.js';
import { listApprovalsForUser } from './list-approvals-for-user.js';
import { listInboundTokens } from '../tokens/list-inbound-tokens.js';
import { listPendingTeamSupportRequests } from './list-pending-team-support-requests.js';
import { resolveInboundEvent } from './resolve-inbound-event.js';
import { adminRevokeCatalogApproval } from './revoke-catalog-approval.js';
import { supplementInboundEvent } from './supplement-inbound-event.js';
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
