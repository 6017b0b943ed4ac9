import { revokeAdminToken } from '../../../domain/tokens/revoke-admin-token.js';
import { RevokedOutput } from '../../../domain/tokens/tokens.schemas.js';
import type { ToolDefinition } from './tool.js';

export const revokeAdminTokenTool: ToolDefinition = {
  name: 'revoke_admin_token',
  title: 'Revoke any inbound token (admin)',
  description:
    'Admin emergency revoke of any inbound token by token_id, with an optional reason: {revoked: true}. Idempotent; the owner is notified (reason shown) and an audit entry is written. Admin users only.',
  operation: revokeAdminToken,
  output: RevokedOutput,
  readOnly: false,
  destructive: true,
};
