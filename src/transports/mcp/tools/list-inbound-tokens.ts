import { listInboundTokens, ListInboundTokensOutput } from '../../../domain/tokens/list-inbound-tokens.js';
import type { ToolDefinition } from './tool.js';
import { TOKEN_LIMITS } from '../../../domain/tokens/tokens.limits.js';

export const listInboundTokensTool: ToolDefinition = {
  name: 'list_inbound_tokens',
  title: 'List inbound tokens (admin)',
  description: `Every inbound token, newest first: {items[{id, label, kind, status, owner_email, created_at, revoked_at, linked_catalog_slug}]}; never token values. Filters: kind (personal, moderation, tools_claim), include_revoked (default false); limit 1-${TOKEN_LIMITS.listMax} (default ${TOKEN_LIMITS.listDefault}). Admin users only.`,
  operation: listInboundTokens,
  output: ListInboundTokensOutput,
  readOnly: true,
};
