// `issue_personal_inbound_token` (SPEC C write tools): the tool form of tokens.issue_own. The rules
// and the `inbound.token.*` audit row stay with tokens.issue_own; the tool adds its own row,
// `agent.tool.issue_personal_inbound_token`, in the same transaction.
import { z } from 'zod';
import { withToolAudit } from '../audit/tool-audit.js';
import { issueOwnPersonalToken } from './issue-own-personal-token.js';

export const IssuePersonalInboundTokenOutput = z.object({ token_id: z.uuid(), token_value: z.string(), endpoint_url: z.string() });

export const issuePersonalInboundToken = withToolAudit(issueOwnPersonalToken, 'issue_personal_inbound_token', (input, out) => ({
  action: 'agent.tool.issue_personal_inbound_token',
  targetType: 'inbound_token',
  targetId: out.token_id,
  summary: { token_id: out.token_id, label: input.label, daily_limit: input.daily_limit },
}));
