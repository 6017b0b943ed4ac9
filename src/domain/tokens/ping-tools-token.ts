// Tools-token ping: proves an admin-owned tools-token works and shows whose it is; creates nothing.
import { z } from 'zod';
import { defineOperation } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import { requireAdminToolsToken } from './tools-access.rules.js';

export interface ToolsPing {
  ok: true;
  kind: 'tools_claim';
  tools_token_id: string;
  label: string;
  owner: string;
  now: string;
}

export const pingToolsToken = defineOperation<unknown, ToolsPing, InboundTokenPrincipal>({
  name: 'tokens.ping_tools',
  auth: { kind: 'inbound', tokenKinds: ['tools_claim'] },
  budget: 'request',
  idempotent: false,
  input: z.unknown(),
  handler: async (_input, ctx) => {
    requireAdminToolsToken(ctx.principal);
    return {
      ok: true,
      kind: 'tools_claim',
      tools_token_id: ctx.principal.tokenId,
      label: ctx.principal.label,
      owner: ctx.principal.userEmail,
      now: ctx.clock.now().toISOString(),
    };
  },
});
