import { approveTeamSupportRequest, ApproveTeamSupportRequestOutput } from '../../../domain/catalog/approve-team-support-request.js';
import type { ToolDefinition } from './tool.js';

export const approveTeamSupportRequestTool: ToolDefinition = {
  name: 'approve_team_support_request',
  title: 'Approve team-support request (admin)',
  description:
    'Approves a pending team-support request (request_id): {request_id, status, access_asset_id, asset_id}; asset_id is a deprecated alias of access_asset_id. A request that is not pending answers CONFLICT. Admin users only.',
  operation: approveTeamSupportRequest,
  output: ApproveTeamSupportRequestOutput,
  readOnly: false,
  idempotent: false,
};
