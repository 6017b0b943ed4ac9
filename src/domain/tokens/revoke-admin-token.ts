// `revoke_admin_token` (SPEC C write tools; scope admin:tokens): the tool form of the admin
// emergency revoke (tokens.admin_revoke), plus the tool's `agent.tool.revoke_admin_token` audit row.
import { withToolAudit } from '../audit/tool-audit.js';
import { adminRevokeToken } from './revoke-token-as-admin.js';

export const revokeAdminToken = withToolAudit(adminRevokeToken, 'revoke_admin_token', (input) => ({
  action: 'agent.tool.revoke_admin_token',
  targetType: 'inbound_token',
  targetId: input.token_id,
  summary: { token_id: input.token_id, with_reason: input.reason !== undefined },
}));
