import { issueAdminModerationToken, IssueAdminModerationTokenOutput } from '../../../../domain/moderation/issue-admin-moderation-token.js';
import type { ToolDefinition } from '../tool.js';
import { TOKEN_LIMITS } from '../../../../domain/tokens/tokens.limits.js';
import { MODERATION_LIMITS } from '../../../../domain/moderation/moderation.limits.js';

export const issueAdminModerationTokenTool: ToolDefinition = {
  name: 'issue_admin_moderation_token',
  title: 'Issue moderation token (admin)',
  description: `Creates a moderation token (personal format svc-in-pers-) owned by you: events sent with it land only in your hold-for-forwarding queue (no inbox row, no push); each event must carry recipient (or the deprecated recipient_hint). Also creates its integrator (prefix from label) and linked catalog row. Returns {token_id, token_value, catalog_row_id, catalog_slug, daily_limit, endpoint_url, allowed_event_prefix}; token_value is shown once. daily_limit 1-${TOKEN_LIMITS.dailyLimitMax}, default ${MODERATION_LIMITS.tokenDailyLimitDefault}. Admin users only.`,
  operation: issueAdminModerationToken,
  output: IssueAdminModerationTokenOutput,
  readOnly: false,
  idempotent: false,
};
