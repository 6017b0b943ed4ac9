// The token tools that are existing agent operations (SPEC C write tools), each with its audit
// row naming the tool: issue_personal_inbound_token and revoke_personal_token (the caller's own
// tokens, scope write:inbox) and revoke_admin_token (admin emergency revoke, scope admin:tokens).
// Rules stay in tokens/own-token-operations.ts and tokens/admin-token-operations.ts, which also
// write their own `inbound.token.*` rows; the tool row (`agent.tool.<tool>`) ties the change to the tool.
import { z } from 'zod';
import { adminRevokeToken } from '../tokens/revoke-token-as-admin.js';
import { issueOwnPersonalToken } from '../tokens/issue-own-personal-token.js';
import { revokeOwnToken } from '../tokens/revoke-own-token.js';
import { withToolAudit } from '../audit/tool-audit.js';

export const IssuePersonalInboundTokenOutput = z.object({ token_id: z.uuid(), token_value: z.string(), endpoint_url: z.string() });
export const RevokedOutput = z.object({ revoked: z.literal(true) });

export const issuePersonalInboundToken = withToolAudit(issueOwnPersonalToken, 'issue_personal_inbound_token', (input, out) => ({
  action: 'agent.tool.issue_personal_inbound_token',
  targetType: 'inbound_token',
  targetId: out.token_id,
  summary: { token_id: out.token_id, label: input.label, daily_limit: input.daily_limit },
}));

export const revokePersonalToken = withToolAudit(revokeOwnToken, 'revoke_personal_token', (input) => ({
  action: 'agent.tool.revoke_personal_token',
  targetType: 'inbound_token',
  targetId: input.token_id,
  summary: { token_id: input.token_id },
}));

export const revokeAdminToken = withToolAudit(adminRevokeToken, 'revoke_admin_token', (input) => ({
  action: 'agent.tool.revoke_admin_token',
  targetType: 'inbound_token',
  targetId: input.token_id,
  summary: { token_id: input.token_id, with_reason: input.reason !== undefined },
}));
