// `revoke_personal_token` (SPEC C write tools): the tool form of tokens.revoke_own (the caller's
// own token), plus the tool's `agent.tool.revoke_personal_token` audit row in the same transaction.
import { withToolAudit } from '../audit/tool-audit.js';
import { revokeOwnToken } from './revoke-own-token.js';

export const revokePersonalToken = withToolAudit(revokeOwnToken, 'revoke_personal_token', (input) => ({
  action: 'agent.tool.revoke_personal_token',
  targetType: 'inbound_token',
  targetId: input.token_id,
  summary: { token_id: input.token_id },
}));
