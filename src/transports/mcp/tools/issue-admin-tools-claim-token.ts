import { issueAdminToolsClaimToken, IssueAdminToolsClaimTokenOutput } from '../../../domain/tokens/issue-admin-tools-claim-token.js';
import type { ToolDefinition } from './tool.js';

export const issueAdminToolsClaimTokenTool: ToolDefinition = {
  name: 'issue_admin_tools_claim_token',
  title: 'Issue tools-claim token (admin)',
  description:
    'Creates a tools-token (svc-tools-) owned by you for a new integrator named after label (slugified, made unique), plus its linked catalog row: {token_id, token_value, catalog_row_id, catalog_slug, daily_limit, endpoint_url, integrator_slug, allowed_event_prefix}. token_value is shown once. endpoint_url is the claim endpoint. Admin users only.',
  operation: issueAdminToolsClaimToken,
  output: IssueAdminToolsClaimTokenOutput,
  readOnly: false,
  idempotent: false,
};
