import { revokePersonalToken } from '../../../domain/tokens/revoke-personal-token.js';
import { RevokedOutput } from '../../../domain/tokens/tokens.schemas.js';
import type { ToolDefinition } from './tool.js';

export const revokePersonalTokenTool: ToolDefinition = {
  name: 'revoke_personal_token',
  title: 'Revoke personal token',
  description: "Revokes one of YOUR inbound tokens by token_id (permanent): {revoked: true}. Idempotent. Another user's token id answers NOT_FOUND.",
  operation: revokePersonalToken,
  output: RevokedOutput,
  readOnly: false,
  destructive: true,
};
