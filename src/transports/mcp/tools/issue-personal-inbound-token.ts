import { issuePersonalInboundToken, IssuePersonalInboundTokenOutput } from '../../../domain/tokens/issue-personal-inbound-token.js';
import type { ToolDefinition } from './tool.js';
import { TOKEN_LIMITS } from '../../../domain/tokens/tokens.limits.js';

export const issuePersonalInboundTokenTool: ToolDefinition = {
  name: 'issue_personal_inbound_token',
  title: 'Issue personal inbound token',
  description: `Mints a personal inbound token (svc-in-pers-) for YOU only: {token_id, token_value, endpoint_url}. token_value is shown once; publish events to endpoint_url with it. label 1-${TOKEN_LIMITS.labelMax} chars; daily_limit 1-${TOKEN_LIMITS.dailyLimitMax} (default ${TOKEN_LIMITS.claimDailyLimitDefault}).`,
  operation: issuePersonalInboundToken,
  output: IssuePersonalInboundTokenOutput,
  readOnly: false,
  idempotent: false,
};
